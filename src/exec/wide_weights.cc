#include "exec/wide_weights.h"

#include <map>

#include "exec/bind_conv_params.h"
#include "exec/conv_primitive.h"
#include "plan/plan_walk.h"

namespace tinyfit::exec {
namespace {

void mark_calls(std::vector<plan::Step>& steps, const std::set<ir::NodeId>& nodes, int& marked) {
  for (plan::Step& step : steps) {
    if (auto* call = std::get_if<plan::KernelCall>(&step.what)) {
      call->wide_weights = call->node >= 0 && nodes.contains(call->node);
      marked += call->wide_weights ? 1 : 0;
    } else {
      mark_calls(std::get<plan::Loop>(step.what).body, nodes, marked);
    }
  }
}

}  // namespace

Result<std::vector<WidenableNode>> find_widenable_nodes(const ir::Graph& graph, const plan::Plan& plan) {
  std::map<ir::NodeId, WidenableNode> widenable;
  std::set<ir::NodeId> excluded;
  TINYFIT_RETURN_IF_ERROR(plan::walk_calls(plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) -> Status {
    for (const ir::NodeId id : call.computed_nodes()) {
      if (id < 0 || graph.nodes.at(static_cast<size_t>(id)).op != ir::OpType::kConv2D) continue;
      if (!call.fused.empty()) {  // the fused kernels keep their own layouts
        excluded.insert(id);
        continue;
      }
      const KernelCallContext context{graph, plan, call, true};
      TINYFIT_ASSIGN_OR_RETURN(std::unique_ptr<ConvConstants> constants, ConvConstants::prepare(context));
      ConvCallFacts facts = describe_conv_call(context, *constants);
      facts.wide_weights = false;
      const bool packed_today = choose_conv_primitive(facts) == ConvPrimitive::kIm2colDsp;
      facts.wide_weights = true;
      if (!packed_today || choose_conv_primitive(facts) != ConvPrimitive::kIm2colWideDsp) {
        excluded.insert(id);
        continue;
      }
      const tf_conv_params& p = constants->params();
      const int64_t pairs = (p.out_channels + 1) / 2, groups = (p.in_channels / p.groups + 3) / 4;
      widenable[id] = {id, pairs * groups * 8};
    }
    return {};
  }));
  std::vector<WidenableNode> nodes;
  for (const auto& [id, node] : widenable) {
    if (!excluded.contains(id)) nodes.push_back(node);
  }
  return nodes;
}

int mark_wide_weights(plan::Plan& plan, const std::set<ir::NodeId>& nodes) {
  int marked = 0;
  mark_calls(plan.steps, nodes, marked);
  return marked;
}

}  // namespace tinyfit::exec
