#include "tensor_report.h"

#include <sstream>

#include "text_table.h"

namespace tinyfit::tools {

std::string describe_quant(const std::optional<ir::QuantParams>& quant) {
  if (!quant || quant->scale.empty()) return "-";
  std::ostringstream text;
  if (quant->per_channel()) {
    text << "per-channel axis " << quant->axis << " (" << quant->scale.size() << " scales)";
  } else {
    text << "scale " << quant->scale[0] << " zp "
         << (quant->zero_point.empty() ? 0 : quant->zero_point[0]);
  }
  return text.str();
}

nlohmann::json quant_to_json(const std::optional<ir::QuantParams>& quant) {
  if (!quant) return nullptr;
  return {{"scale", quant->scale}, {"zero_point", quant->zero_point}, {"axis", quant->axis}};
}

nlohmann::json tensor_to_json(const ir::Tensor& tensor) {
  return {{"name", tensor.name},
          {"dtype", std::string(ir::dtype_name(tensor.dtype))},
          {"shape", tensor.shape},
          {"quant", quant_to_json(tensor.quant)}};
}

void print_tensor_table(std::ostream& out, const std::string& heading,
                        const std::vector<const ir::Tensor*>& tensors) {
  out << heading << ":\n";
  TextTable table({"name", "dtype", "shape", "quantization"});
  for (const ir::Tensor* tensor : tensors) {
    table.add_row({tensor->name, std::string(ir::dtype_name(tensor->dtype)),
                   ir::format_shape(tensor->shape), describe_quant(tensor->quant)});
  }
  table.print(out);
}

}  // namespace tinyfit::tools
