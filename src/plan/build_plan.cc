#include "plan/build_plan.h"

#include "plan/lowering_buffers.h"
#include "support/diag.h"

namespace tinyfit::plan {

Plan build_operator_plan(const ir::Graph& graph, const analysis::BufferGraph& bg,
                         const analysis::Order& order) {
  Plan plan;
  plan.buffers.resize(bg.buffers.size());
  std::vector<bool> typed(bg.buffers.size(), false);
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const int b = bg.buffer_of_tensor[t];
    if (b < 0 || typed[static_cast<size_t>(b)]) continue;
    typed[static_cast<size_t>(b)] = true;
    plan.buffers[static_cast<size_t>(b)].dtype = graph.tensors[t].dtype;
  }
  for (size_t b = 0; b < bg.buffers.size(); ++b) {
    const analysis::Buffer& source = bg.buffers[b];
    PlanBuffer& buffer = plan.buffers[b];
    buffer.name = source.name;
    buffer.bytes = source.bytes;
    buffer.role = whole_buffer_role(source);
  }
  auto view_of = [&](ir::TensorId t) {
    const int b = bg.buffer_of_tensor.at(static_cast<size_t>(t));
    TINYFIT_CHECK(b >= 0) << "tensor '" << graph.tensor(t).name << "' has no buffer";
    return make_dense_view(b, graph.tensor(t).shape);
  };
  for (ir::TensorId t : graph.inputs) plan.inputs.push_back(bg.buffer_of_tensor.at(static_cast<size_t>(t)));
  for (ir::TensorId t : graph.outputs) plan.outputs.push_back(bg.buffer_of_tensor.at(static_cast<size_t>(t)));

  for (int op_index : order) {
    const analysis::Operator& op = bg.operators.at(static_cast<size_t>(op_index));
    const ir::Node& node = graph.nodes.at(static_cast<size_t>(op.node));
    KernelCall call;
    call.node = op.node;
    for (ir::TensorId t : node.inputs) {
      if (t == ir::kNoTensor || graph.tensor(t).is_constant) continue;
      call.inputs.push_back(view_of(t));
    }
    for (ir::TensorId t : node.outputs) {
      if (t != ir::kNoTensor) call.outputs.push_back(view_of(t));
    }
    if (op.workspace_bytes > 0) {
      PlanBuffer workspace;
      workspace.name = node.name + ":workspace";
      workspace.role = BufferRole::kWorkspace;
      workspace.dtype = ir::DType::kI8;
      workspace.bytes = op.workspace_bytes;
      call.workspace = static_cast<BufferId>(plan.buffers.size());
      plan.buffers.push_back(std::move(workspace));
    }
    plan.steps.push_back(Step{std::move(call)});
  }
  return plan;
}

}  // namespace tinyfit::plan
