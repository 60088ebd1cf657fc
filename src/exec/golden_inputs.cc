#include "exec/golden_inputs.h"

#include <string>

#include "exec/reference_interpreter.h"

namespace tinyfit::exec {

bool has_golden_input(ir::DType dtype) {
  return dtype == ir::DType::kF32 || dtype == ir::DType::kI8 || dtype == ir::DType::kU8 || dtype == ir::DType::kI16;
}

Result<std::vector<TensorData>> make_golden_inputs(const ir::Graph& graph, uint32_t seed) {
  std::vector<TensorData> inputs;
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const ir::Tensor& tensor = graph.tensor(graph.inputs[i]);
    if (!has_golden_input(tensor.dtype)) {
      return fail("input '" + tensor.name + "' is " + std::string(ir::dtype_name(tensor.dtype)) +
                  ": no deterministic input for this dtype");
    }
    inputs.push_back(make_golden_input(tensor.dtype, tensor.shape, seed + static_cast<uint32_t>(i)));
  }
  return inputs;
}

double read_element_as_double(const TensorData& data, size_t i) {
  switch (data.dtype) {
    case ir::DType::kF32: return data.values<float>()[i];
    case ir::DType::kI8: return data.values<int8_t>()[i];
    case ir::DType::kU8: return data.values<uint8_t>()[i];
    case ir::DType::kI16: return data.values<int16_t>()[i];
    case ir::DType::kI32: return data.values<int32_t>()[i];
    case ir::DType::kI64: return static_cast<double>(data.values<int64_t>()[i]);
    case ir::DType::kBool: return data.values<uint8_t>()[i];
  }
  TINYFIT_CHECK(false) << "unknown dtype " << static_cast<int>(data.dtype);
  return 0;
}

}  // namespace tinyfit::exec
