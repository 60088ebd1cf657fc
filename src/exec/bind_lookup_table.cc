#include "exec/bind_lookup_table.h"

#include "exec/reference_interpreter.h"

namespace tinyfit::exec {

Result<TensorData> run_node_on_every_byte(const ir::Graph& graph, const ir::Node& node) {
  TINYFIT_CHECK(node.inputs.size() == 1 && node.outputs.size() == 1) << "node '" << node.name << "'";
  const ir::Tensor& input = graph.input_tensor(node, 0);
  TINYFIT_CHECK(input.dtype == ir::DType::kI8 || input.dtype == ir::DType::kU8)
      << "byte table of " << ir::dtype_name(input.dtype) << " input";
  constexpr int64_t kBytes = 256;
  ir::Graph one;
  one.name = graph.name;
  one.source_path = graph.source_path;
  ir::Tensor x = input;
  x.shape = {kBytes};
  x.is_constant = false;
  x.data.clear();
  ir::Tensor y = graph.output_tensor(node, 0);
  y.shape = {kBytes};
  const ir::TensorId x_id = one.add_tensor(std::move(x));
  const ir::TensorId y_id = one.add_tensor(std::move(y));
  ir::Node copy = node;
  copy.inputs = {x_id};
  copy.outputs = {y_id};
  one.add_node(std::move(copy));
  one.inputs = {x_id};
  one.outputs = {y_id};

  TensorData every_byte = TensorData::zeros(input.dtype, {kBytes});
  for (int64_t b = 0; b < kBytes; ++b) every_byte.bytes[static_cast<size_t>(b)] = static_cast<uint8_t>(b);
  TINYFIT_ASSIGN_OR_RETURN(std::vector<TensorData> outputs, run_reference(one, {every_byte}));
  return std::move(outputs.at(0));
}

}  // namespace tinyfit::exec
