#include "driver/motes_latency.h"

#include <limits>
#include <map>
#include <memory>
#include <tuple>
#include <utility>

#include "analysis/memory_profile.h"
#include "cost/predict.h"
#include "exec/add_kernel_workspaces.h"
#include "exec/plan_work.h"
#include "partition/contract_loops.h"
#include "plan/build_plan.h"
#include "plan/lower_motes.h"
#include "plan/lower_row_loop.h"

namespace tinyfit::driver {
namespace {

// The predicted instructions of each node's whole call in the ordinary plan.
Result<std::map<ir::NodeId, double>> predict_ordinary_calls(const ir::Graph& graph, const plan::Plan& ordinary,
                                                           const cost::CostTable& table) {
  TINYFIT_ASSIGN_OR_RETURN(const auto work, exec::count_call_work(graph, ordinary));
  std::map<ir::NodeId, double> by_node;
  for (const auto& [call, call_work] : work) {
    TINYFIT_ASSIGN_OR_RETURN(const double predicted, cost::predict_instructions(table, call_work));
    by_node[call->node] += predicted;
  }
  return by_node;
}

// The predicted instructions of the scheme's row loop alone: the plan with
// the loop, its other steps dropped (their calls are ordinary's), counted
// without the run function's prologue.
Result<double> predict_loop(const ir::Graph& graph, const analysis::BufferGraph& bg,
                            const partition::PartitionScheme& scheme, const cost::CostTable& table) {
  // An order with the loop's operators consecutive (a token loop leaves out
  // operators between them: contract_loops.h).
  const std::vector<partition::LoopSummary> loops{{scheme.operators, 0, {}}};
  const partition::ContractedGraph cg = partition::contract_loops(bg, loops);
  const analysis::Order order =
      partition::expand_order(cg, loops, partition::contract_order(bg, cg, analysis::given_order(bg)));
  TINYFIT_ASSIGN_OR_RETURN(plan::Plan lowered,
                           plan::build_row_loop_plan(graph, bg, order,
                                                     {{scheme.operators, scheme.tile, plan::to_loop_axis(scheme.axis)}}));
  std::erase_if(lowered.steps, [](const plan::Step& step) { return !step.is_loop(); });
  TINYFIT_RETURN_IF_ERROR(exec::add_kernel_workspaces(graph, lowered));
  TINYFIT_ASSIGN_OR_RETURN(cost::PlanWork work, exec::count_plan_work(graph, lowered));
  cost::at(work.run, cost::RunFeature::kRuns) = 0;
  return cost::predict_instructions(table, work);
}

}  // namespace

Result<MotesLatency> build_motes_latency(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                         const cost::CostTable& table) {
  plan::Plan ordinary = plan::build_operator_plan(graph, bg, analysis::given_order(bg));
  TINYFIT_RETURN_IF_ERROR(exec::add_kernel_workspaces(graph, ordinary));
  TINYFIT_ASSIGN_OR_RETURN(const cost::PlanWork work, exec::count_plan_work(graph, ordinary));
  MotesLatency latency;
  TINYFIT_ASSIGN_OR_RETURN(latency.ordinary, cost::predict_instructions(table, work));
  using NodeInstructions = std::map<ir::NodeId, double>;
  TINYFIT_ASSIGN_OR_RETURN(NodeInstructions calls, predict_ordinary_calls(graph, ordinary, table));
  auto by_node = std::make_shared<const NodeInstructions>(std::move(calls));
  // The search scores a scheme again in every state that holds it (MobileNetV2-224:
  // about twice), and each prediction lowers the loop and prepares its kernels.
  using LoopKey = std::tuple<partition::PartitionAxis, std::vector<int>, int64_t>;
  auto deltas = std::make_shared<std::map<LoopKey, double>>();
  latency.scheme_delta = [&graph, &bg, &table, by_node, deltas](const partition::PartitionScheme& scheme,
                                                                const partition::RowGeometry&) {
    LoopKey key{scheme.axis, scheme.operators, scheme.tile};  // what predict_loop reads
    if (const auto known = deltas->find(key); known != deltas->end()) return known->second;
    const Result<double> loop = predict_loop(graph, bg, scheme, table);
    double delta = std::numeric_limits<double>::infinity();
    if (loop) {
      double whole = 0;
      for (int op : scheme.operators) {
        const auto found = by_node->find(bg.operators[static_cast<size_t>(op)].node);
        if (found != by_node->end()) whole += found->second;
      }
      delta = *loop - whole;
    }
    deltas->emplace(std::move(key), delta);
    return delta;
  };
  return latency;
}

}  // namespace tinyfit::driver
