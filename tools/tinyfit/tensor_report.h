// How commands show a tensor: its name, dtype, shape and quantization, as a
// table row or as a JSON object. One place, so info and run agree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/tensor.h"

namespace tinyfit::tools {

// "scale 0.0235 zp -128", "per-channel axis 0 (32 scales)", or "-".
std::string describe_quant(const std::optional<ir::QuantParams>& quant);

// {"scale": [...], "zero_point": [...], "axis": n} or null.
nlohmann::json quant_to_json(const std::optional<ir::QuantParams>& quant);

// {"name", "dtype", "shape", "quant"}.
nlohmann::json tensor_to_json(const ir::Tensor& tensor);

// Prints a table of tensors (graph inputs or outputs) under a heading.
void print_tensor_table(std::ostream& out, const std::string& heading,
                        const std::vector<const ir::Tensor*>& tensors);

}  // namespace tinyfit::tools
