#include "exec/add_kernel_workspaces.h"

#include "exec/bind_conv_params.h"
#include "exec/conv_primitive.h"

namespace tinyfit::exec {
namespace {

bool is_conv_family(ir::OpType op) {
  return op == ir::OpType::kConv2D || op == ir::OpType::kDepthwiseConv2D || op == ir::OpType::kFullyConnected;
}

// Adds the workspace of `call`'s fastest primitive, if it needs one.
Status add_workspace(const ir::Graph& graph, plan::Plan& plan, plan::KernelCall& call,
                     const std::function<bool(const plan::KernelCall&)>& wanted, int& added) {
  if (call.node < 0 || call.workspace >= 0 || call.inputs.empty() || call.outputs.size() != 1) return {};
  if (wanted && !wanted(call)) return {};
  const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
  if (!is_conv_family(node.op)) return {};
  const KernelCallContext context{graph, plan, call};
  TINYFIT_ASSIGN_OR_RETURN(std::unique_ptr<ConvConstants> constants, ConvConstants::prepare(context));
  const int64_t bytes = count_fastest_workspace_bytes(describe_conv_call(context, *constants));
  if (bytes == 0) return {};
  plan::PlanBuffer workspace;
  workspace.name = node.name + ":workspace";
  workspace.role = plan::BufferRole::kWorkspace;
  workspace.dtype = ir::DType::kI8;
  workspace.bytes = bytes;
  workspace.alignment = kConvWorkspaceAlignment;
  call.workspace = static_cast<plan::BufferId>(plan.buffers.size());
  plan.buffers.push_back(std::move(workspace));
  ++added;
  return {};
}

// Every call of `steps` and of the loops nested in them.
Status add_workspaces(const ir::Graph& graph, plan::Plan& plan, std::vector<plan::Step>& steps,
                      const std::function<bool(const plan::KernelCall&)>& wanted, int& added) {
  for (plan::Step& step : steps) {
    if (auto* call = std::get_if<plan::KernelCall>(&step.what)) {
      TINYFIT_RETURN_IF_ERROR(add_workspace(graph, plan, *call, wanted, added));
    } else {
      TINYFIT_RETURN_IF_ERROR(add_workspaces(graph, plan, std::get<plan::Loop>(step.what).body, wanted, added));
    }
  }
  return {};
}

}  // namespace

Result<int> add_kernel_workspaces(const ir::Graph& graph, plan::Plan& plan,
                                  const std::function<bool(const plan::KernelCall&)>& wanted) {
  int added = 0;
  TINYFIT_RETURN_IF_ERROR(add_workspaces(graph, plan, plan.steps, wanted, added));
  return added;
}

}  // namespace tinyfit::exec
