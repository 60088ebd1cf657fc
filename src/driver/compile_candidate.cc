#include "driver/compile_candidate.h"

#include <utility>

#include "analysis/inplace.h"
#include "plan/build_plan.h"
#include "plan/lower_pex.h"
#include "plan/plan_macs.h"

namespace tinyfit::driver {
namespace {

// Places the candidate's plan and fills its figures from the placed plan.
Status place_and_measure(const ir::Graph& graph, CompileCandidate& candidate, const CompileOptions& options) {
  plan::PlacementOptions placement_options;
  placement_options.deadline = options.deadline;
  TINYFIT_ASSIGN_OR_RETURN(const plan::Placement placement,
                           plan::place_plan(candidate.plan, options.placement, placement_options));
  candidate.built = true;
  candidate.placement = placement.algorithm;
  candidate.memory = plan::compute_plan_memory(candidate.plan);
  candidate.peak_bytes = candidate.memory.peak_bytes;
  candidate.arena_bytes = candidate.plan.arena_bytes;
  candidate.macs = plan::count_plan_macs(graph, candidate.plan);
  candidate.kernel_calls = candidate.plan.count_calls();
  for (const plan::Step& step : candidate.plan.steps) candidate.loops += step.is_loop() ? 1 : 0;
  return {};
}

}  // namespace

Result<CompileCandidate> build_operator_candidate(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                                  const analysis::Order& order, const std::string& order_name,
                                                  const analysis::InplaceChoices& inplace_choices,
                                                  const CompileOptions& options) {
  const bool inplace = !inplace_choices.empty();
  CompileCandidate candidate;
  if (!order_name.empty()) candidate.techniques.push_back("order:" + order_name);
  if (inplace) candidate.techniques.push_back("inplace");
  candidate.rank = inplace ? LatencyRank::kInplace : order_name.empty() ? LatencyRank::kOrdinary : LatencyRank::kOrder;
  for (const std::string& t : candidate.techniques) candidate.name += (candidate.name.empty() ? "" : "+") + t;
  if (candidate.name.empty()) candidate.name = "ordinary";
  // In-place merges depend on where each input dies, so they come with the order.
  auto build = [&](CompileCandidate& c, const analysis::InplaceChoices& choices) -> Status {
    const analysis::BufferGraph lowered = inplace ? analysis::apply_inplace_choices(bg, order, choices).graph : bg;
    c.plan = plan::build_operator_plan(graph, lowered, order);
    c.plan.techniques = c.techniques;
    return place_and_measure(graph, c, options);
  };
  TINYFIT_RETURN_IF_ERROR(build(candidate, inplace_choices));
  // A merge away from the peak saves nothing there and leaves one long block
  // to place around: above the peak, the plan with only the merges the peak
  // needs (same peak) may place tighter.
  if (inplace && candidate.arena_bytes > candidate.peak_bytes) {
    const analysis::InplaceChoices needed = analysis::keep_choices_the_peak_needs(bg, order, inplace_choices);
    CompileCandidate fewer = candidate;
    TINYFIT_RETURN_IF_ERROR(build(fewer, needed));
    if (fewer.arena_bytes < candidate.arena_bytes) candidate = std::move(fewer);
  }
  return candidate;
}

Result<CompileCandidate> build_pex_candidate(const ir::Graph& graph, bool inplace, const CompileOptions& options) {
  CompileCandidate candidate;
  candidate.name = inplace ? "pex+inplace" : "pex";
  candidate.rank = LatencyRank::kPex;
  plan::PexOptions pex_options;
  pex_options.sram_bytes = options.sram_bytes.value_or(0);
  pex_options.accumulator_bits = options.accumulator_bits;
  pex_options.inplace = inplace;
  pex_options.deadline = options.deadline;
  if (options.progress) {
    pex_options.progress = [progress = options.progress](double fraction) { progress("pex", fraction); };
  }
  Result<plan::PexResult> pex = plan::build_pex_plan(graph, pex_options);
  if (!pex && pex.error().code == ExitCode::kBadCommandLine) {
    candidate.note = pex.error().message;  // "... is not built yet": reported, never faked
    return candidate;
  }
  if (!pex) return tl::unexpected(pex.error());
  candidate.note = pex->note;
  candidate.plan = std::move(pex->plan);
  candidate.techniques = candidate.plan.techniques;
  // Named by what the plan really uses (PEX may decline in-place merges).
  candidate.name.clear();
  for (const std::string& t : candidate.techniques) candidate.name += (candidate.name.empty() ? "" : "+") + t;
  if (candidate.name.empty()) candidate.name = "pex";
  TINYFIT_RETURN_IF_ERROR(place_and_measure(graph, candidate, options));
  return candidate;
}

bool fits_budget(const CompileCandidate& candidate, int64_t sram_bytes) {
  return candidate.built && candidate.arena_bytes <= sram_bytes;
}

}  // namespace tinyfit::driver
