#include "driver/widen_weights.h"

#include <algorithm>
#include <map>
#include <set>

#include "codegen/emit_model.h"
#include "cost/predict.h"
#include "exec/plan_work.h"
#include "exec/wide_weights.h"
#include "plan/plan_walk.h"

namespace tinyfit::driver {
namespace {

// The plan's calls in program order.
Result<std::vector<const plan::KernelCall*>> list_calls(const plan::Plan& plan) {
  std::vector<const plan::KernelCall*> calls;
  TINYFIT_RETURN_IF_ERROR(plan::walk_calls(plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) -> Status {
    calls.push_back(&call);
    return {};
  }));
  return calls;
}

struct Offer {
  exec::WidenableNode node;
  double saved = 0;  // predicted instructions
};

}  // namespace

Result<int64_t> count_const_data_bytes(const ir::Graph& graph, const plan::Plan& plan) {
  codegen::EmitOptions options;
  options.name = "flash";
  TINYFIT_ASSIGN_OR_RETURN(const codegen::EmittedModel emitted, codegen::emit_c_model(graph, plan, options));
  return emitted.constant_bytes;
}

Result<WidenedWeights> widen_weights_within(const ir::Graph& graph, const plan::Plan& plan,
                                            const cost::CostTable& table, int64_t flash_bytes) {
  WidenedWeights result;
  result.plan = plan;
  TINYFIT_ASSIGN_OR_RETURN(result.const_bytes_before, count_const_data_bytes(graph, plan));
  result.const_bytes = result.const_bytes_before;
  TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::WidenableNode> widenable, exec::find_widenable_nodes(graph, plan));
  result.widenable = static_cast<int>(widenable.size());
  if (widenable.empty() || result.const_bytes_before >= flash_bytes) return result;

  // Every widenable node widened at once: a call's work depends on its own
  // weights' layout only, so one pair of counts prices every node.
  std::set<ir::NodeId> all;
  for (const exec::WidenableNode& n : widenable) all.insert(n.node);
  plan::Plan wide = plan;
  exec::mark_wide_weights(wide, all);
  TINYFIT_ASSIGN_OR_RETURN(const auto work_narrow, exec::count_call_work(graph, plan));
  TINYFIT_ASSIGN_OR_RETURN(const auto work_wide, exec::count_call_work(graph, wide));
  TINYFIT_ASSIGN_OR_RETURN(const auto calls_narrow, list_calls(plan));
  TINYFIT_ASSIGN_OR_RETURN(const auto calls_wide, list_calls(wide));
  std::map<ir::NodeId, double> saved;
  std::set<ir::NodeId> unpriced;
  for (size_t i = 0; i < calls_narrow.size(); ++i) {
    const ir::NodeId node = calls_narrow[i]->node;
    if (!all.contains(node)) continue;
    const cost::PlanWork& narrow = work_narrow.at(calls_narrow[i]);
    const cost::PlanWork& widened = work_wide.at(calls_wide[i]);
    const std::vector<std::string> missing = cost::find_unmeasured_kernels(table, widened);
    if (!missing.empty() || !cost::find_unmeasured_kernels(table, narrow).empty()) {
      for (const std::string& kernel : missing) {
        if (std::find(result.unmeasured.begin(), result.unmeasured.end(), kernel) == result.unmeasured.end()) {
          result.unmeasured.push_back(kernel);
        }
      }
      unpriced.insert(node);
      continue;
    }
    TINYFIT_ASSIGN_OR_RETURN(const double before, cost::predict_instructions(table, narrow));
    TINYFIT_ASSIGN_OR_RETURN(const double after, cost::predict_instructions(table, widened));
    saved[node] += before - after;
  }
  std::vector<Offer> offers;
  for (const exec::WidenableNode& n : widenable) {
    if (!unpriced.contains(n.node) && saved[n.node] > 0) offers.push_back({n, saved[n.node]});
  }
  // Most instructions saved per byte first; equal ratios in node order.
  std::stable_sort(offers.begin(), offers.end(), [](const Offer& a, const Offer& b) {
    return a.saved * static_cast<double>(b.node.extra_bytes) > b.saved * static_cast<double>(a.node.extra_bytes);
  });
  // The extra bytes are the layouts' difference; the emitted program is
  // measured again, and a choice over the budget (an int8 array another node
  // shared, counted once) drops its last pick until it fits.
  std::vector<Offer> chosen;
  int64_t room = flash_bytes - result.const_bytes_before;
  for (const Offer& offer : offers) {
    if (offer.node.extra_bytes > room) continue;
    room -= offer.node.extra_bytes;
    chosen.push_back(offer);
  }
  while (!chosen.empty()) {
    std::set<ir::NodeId> nodes;
    for (const Offer& offer : chosen) nodes.insert(offer.node.node);
    plan::Plan marked = plan;
    exec::mark_wide_weights(marked, nodes);
    TINYFIT_ASSIGN_OR_RETURN(const int64_t bytes, count_const_data_bytes(graph, marked));
    if (bytes <= flash_bytes) {
      result.plan = std::move(marked);
      result.const_bytes = bytes;
      result.widened = static_cast<int>(chosen.size());
      for (const Offer& offer : chosen) result.saved_instructions += offer.saved;
      break;
    }
    chosen.pop_back();
  }
  return result;
}

}  // namespace tinyfit::driver
