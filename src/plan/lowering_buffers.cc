#include "plan/lowering_buffers.h"

#include "support/diag.h"

namespace tinyfit::plan {

BufferRole whole_buffer_role(const analysis::Buffer& buffer) {
  if (buffer.is_model_output) return BufferRole::kModelOutput;
  return buffer.producer < 0 ? BufferRole::kModelInput : BufferRole::kActivation;
}

LoweringBuffers::LoweringBuffers(const ir::Graph& graph, const analysis::BufferGraph& bg, Plan& plan)
    : graph_(graph), bg_(bg), plan_(plan), whole_(bg.buffers.size(), -1), dtype_(bg.buffers.size(), ir::DType::kI8) {
  std::vector<bool> typed(bg.buffers.size(), false);
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const int b = bg.buffer_of_tensor[t];
    if (b < 0 || typed[static_cast<size_t>(b)]) continue;
    typed[static_cast<size_t>(b)] = true;
    dtype_[static_cast<size_t>(b)] = graph.tensors[t].dtype;
  }
}

int LoweringBuffers::buffer_of(ir::TensorId t) const {
  const int b = bg_.buffer_of_tensor.at(static_cast<size_t>(t));
  TINYFIT_CHECK(b >= 0) << "tensor '" << graph_.tensor(t).name << "' has no buffer";
  return b;
}

BufferId LoweringBuffers::add(PlanBuffer buffer) {
  plan_.buffers.push_back(std::move(buffer));
  return static_cast<BufferId>(plan_.buffers.size() - 1);
}

BufferId LoweringBuffers::whole(int b) {
  BufferId& id = whole_.at(static_cast<size_t>(b));
  if (id >= 0) return id;
  const analysis::Buffer& source = bg_.buffers[static_cast<size_t>(b)];
  PlanBuffer buffer;
  buffer.name = source.name;
  buffer.role = whole_buffer_role(source);
  buffer.dtype = dtype_of(b);
  buffer.bytes = source.bytes;
  id = add(std::move(buffer));
  return id;
}

void LoweringBuffers::bind_whole(int b, BufferId id) {
  BufferId& bound = whole_.at(static_cast<size_t>(b));
  TINYFIT_CHECK(bound < 0) << "buffer '" << bg_.buffers[static_cast<size_t>(b)].name << "' used before its loop";
  bound = id;
}

BufferId LoweringBuffers::add_workspace(const analysis::Operator& op) {
  if (op.workspace_bytes <= 0) return -1;
  PlanBuffer buffer;
  buffer.name = op.name + ":workspace";
  buffer.role = BufferRole::kWorkspace;
  buffer.dtype = ir::DType::kI8;
  buffer.bytes = op.workspace_bytes;
  return add(std::move(buffer));
}

KernelCall LoweringBuffers::make_whole_call(int op_index) {
  const analysis::Operator& op = bg_.operators.at(static_cast<size_t>(op_index));
  const ir::Node& node = graph_.nodes.at(static_cast<size_t>(op.node));
  KernelCall call;
  call.node = op.node;
  for (ir::TensorId t : node.inputs) {
    if (t != ir::kNoTensor && !graph_.tensor(t).is_constant) call.inputs.push_back(whole_view(t));
  }
  for (ir::TensorId t : node.outputs) {
    if (t != ir::kNoTensor) call.outputs.push_back(whole_view(t));
  }
  call.workspace = add_workspace(op);
  return call;
}

void LoweringBuffers::add_graph_inputs_and_outputs() {
  for (ir::TensorId t : graph_.inputs) plan_.inputs.push_back(whole(buffer_of(t)));
  for (ir::TensorId t : graph_.outputs) plan_.outputs.push_back(whole(buffer_of(t)));
}

}  // namespace tinyfit::plan
