#include "driver/compile_candidate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "analysis/inplace.h"
#include "cost/predict.h"
#include "driver/motes_latency.h"
#include "driver/select_workspaces.h"
#include "exec/kernel_call.h"
#include "exec/plan_work.h"
#include "partition/motes_search.h"
#include "plan/build_plan.h"
#include "plan/lower_motes.h"
#include "plan/lower_overlap.h"
#include "plan/lower_pex.h"
#include "plan/plan_macs.h"

namespace tinyfit::driver {
namespace {

// The latency model's figure for the candidate's plan. A call no kernel serves,
// or a kernel the target's table has no row for, leaves it unpredicted (the
// note says why) rather than failing the compile: choose_candidate puts such a
// candidate after every predicted one, and the execution check reports a plan
// no kernel serves if it is ever chosen.
Status predict_latency(const ir::Graph& graph, CompileCandidate& candidate, const CompileOptions& options) {
  TINYFIT_ASSIGN_OR_RETURN(const cost::CostTable* table, cost::find_cost_table(options.target));
  auto explain = [&candidate](const std::string& why) {
    candidate.note += (candidate.note.empty() ? "" : "; ") + std::string("latency not predicted: ") + why;
  };
  const Result<cost::PlanWork> work = exec::count_plan_work(graph, candidate.plan);
  if (!work) {
    explain(work.error().message);
    return {};
  }
  candidate.unmeasured_kernels = cost::find_unmeasured_kernels(*table, *work);
  const Result<double> predicted = cost::predict_instructions(*table, *work);
  if (!predicted) {
    explain(predicted.error().message);
    return {};
  }
  candidate.predicted_instructions = *predicted;
  return {};
}

// Places `plan` and returns the placement (algorithm, arena in plan.arena_bytes).
Result<plan::Placement> place(plan::Plan& plan, const CompileOptions& options) {
  plan::PlacementOptions placement_options;
  placement_options.deadline = options.deadline;
  return plan::place_plan(plan, options.placement, placement_options);
}

// Gives conv-family calls the workspaces of their fastest primitives
// (select_workspaces.h) where memory allows: under --sram, the fastest
// selection whose arena fits the budget; without one, the fastest that keeps
// the arena the plan already has (speed for free, never more memory). The
// ILP bounds live bytes, and placement can then need more than the peak, so
// a selection whose arena overshoots is retried with the budget lowered by
// the overshoot, a few times, before the plan keeps no workspace.
// With an `instruction_limit` instead (a motes plan whose selection within
// its arena is predicted above its latency budget): the selection of the
// smallest peak whose predicted instructions stay within the limit, the
// fastest of that peak; the arena may grow past the plan's.
Status select_primitives(const ir::Graph& graph, CompileCandidate& candidate, plan::Placement& placement,
                         const CompileOptions& options, std::optional<double> instruction_limit) {
  TINYFIT_ASSIGN_OR_RETURN(const cost::CostTable* table, cost::find_cost_table(options.target));
  TINYFIT_ASSIGN_OR_RETURN(const WorkspaceProblem problem, build_workspace_problem(graph, candidate.plan, *table));
  if (problem.problem.sites.empty()) return {};
  if (instruction_limit) {
    const plan::Selection smallest = plan::select_smallest_within(
        problem.problem, *instruction_limit - problem.fixed_instructions, options.deadline);
    if (!smallest.feasible) return {};
    // Many selections tie on the peak: the fastest of them.
    const plan::Selection fastest = plan::select_fastest_within(problem.problem, smallest.peak_bytes, options.deadline);
    const plan::Selection& selection = fastest.feasible ? fastest : smallest;
    const auto chosen = std::count(selection.choice.begin(), selection.choice.end(), 1);
    if (chosen == 0) return {};
    const int64_t arena_before = candidate.plan.arena_bytes;
    TINYFIT_ASSIGN_OR_RETURN(candidate.plan, apply_workspace_selection(graph, candidate.plan, problem, selection));
    TINYFIT_ASSIGN_OR_RETURN(placement, place(candidate.plan, options));
    candidate.note += (candidate.note.empty() ? "" : "; ") + std::to_string(chosen) + " of " +
                      std::to_string(problem.problem.sites.size()) +
                      " convolutions given the workspace of a faster primitive, the smallest peak within the "
                      "latency budget (arena " + std::to_string(arena_before) + " without them)";
    return {};
  }
  const int64_t arena_limit = options.sram_bytes.value_or(candidate.plan.arena_bytes);
  int64_t peak_budget = arena_limit;
  constexpr int kAttempts = 4;
  for (int attempt = 0; attempt < kAttempts && !options.deadline.expired(); ++attempt) {
    const plan::Selection selection = plan::select_fastest_within(problem.problem, peak_budget, options.deadline);
    const auto chosen = std::count(selection.choice.begin(), selection.choice.end(), 1);
    if (!selection.feasible || chosen == 0) return {};
    TINYFIT_ASSIGN_OR_RETURN(plan::Plan selected,
                             apply_workspace_selection(graph, candidate.plan, problem, selection));
    TINYFIT_ASSIGN_OR_RETURN(plan::Placement selected_placement, place(selected, options));
    if (selected.arena_bytes <= arena_limit) {
      candidate.plan = std::move(selected);
      placement = std::move(selected_placement);
      candidate.note += (candidate.note.empty() ? "" : "; ") + std::to_string(chosen) + " of " +
                        std::to_string(problem.problem.sites.size()) +
                        " convolutions given the workspace of a faster primitive";
      return {};
    }
    peak_budget -= selected.arena_bytes - arena_limit;
  }
  return {};
}

// Places the candidate's plan, selects its primitives, and fills its figures
// from the placed plan.
// With `instruction_limit`, the primitives are the smallest selection within it
// (select_primitives).
Status place_and_measure(const ir::Graph& graph, CompileCandidate& candidate, const CompileOptions& options,
                         std::optional<double> instruction_limit = std::nullopt) {
  TINYFIT_ASSIGN_OR_RETURN(plan::Placement placement, place(candidate.plan, options));
  if (options.select_primitives) {
    TINYFIT_RETURN_IF_ERROR(select_primitives(graph, candidate, placement, options, instruction_limit));
  }
  candidate.built = true;
  candidate.placement = placement.algorithm;
  candidate.memory = plan::compute_plan_memory(candidate.plan);
  candidate.peak_bytes = candidate.memory.peak_bytes;
  candidate.arena_bytes = candidate.plan.arena_bytes;
  candidate.macs = plan::count_plan_macs(graph, candidate.plan);
  candidate.kernel_calls = candidate.plan.count_calls();
  for (const plan::Step& step : candidate.plan.steps) candidate.loops += step.is_loop() ? 1 : 0;
  return predict_latency(graph, candidate, options);
}

// The search's stand-in for the latency model when the model cannot predict
// the plan (a kernel its table lacks): extra kernel calls, which order states
// of equal memory and price no budget (a finite budget is then not built).
MotesLatency count_extra_calls(const ir::Graph& graph, const analysis::BufferGraph& bg) {
  MotesLatency latency;
  latency.ordinary = static_cast<double>(plan::build_operator_plan(graph, bg, analysis::given_order(bg)).count_calls());
  latency.scheme_delta = [](const partition::PartitionScheme& scheme, const partition::RowGeometry& geometry) {
    const auto operators = static_cast<int64_t>(scheme.operators.size());
    return static_cast<double>((geometry.iterations - 1) * operators + geometry.copy_calls);
  };
  return latency;
}

// The lowerings of a searched state the motes candidate compares
// (plan/lower_motes.h): without the row-loop overlaps; with them from the
// inputs' starts, or at the limits (then also with the loops' row buffers in
// the input bytes below the outputs): the same bytes are shared when an
// output fits in its input, but they place differently; and the last of
// these with each loop's producers at their own rate (plan/lower_row_loop.h:
// fewer rows in the loop buffers, more iterations).
struct RowLoopLowering {
  const char* label;
  bool row_overlaps;
  bool row_overlaps_at_limit;
  bool row_buffers_in_input;
  bool producer_rates;
};
constexpr std::array<RowLoopLowering, 5> kRowLoopLowerings{{
    {"without row-loop overlaps", false, false, false, false},
    {"row-loop overlaps from the inputs' starts", true, false, false, false},
    {"row-loop overlaps at the limits", true, true, false, false},
    {"row-loop overlaps at the limits, row buffers below them", true, true, true, false},
    {"row-loop overlaps at the limits, row buffers below them, producers at their rate", true, true, true, true},
}};

std::string describe_budget(double latency_budget) {
  if (latency_budget == partition::kNoLatencyBudget) return "no latency budget";
  char text[32];
  std::snprintf(text, sizeof text, "latency budget %.3g", latency_budget);
  return text;
}

std::string format_ratio(double ratio) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4fx", ratio);
  return text;
}

// The overlap lowering with the overlaps of unfused calls and the fusions
// only where the peak needs them.
plan::OverlapOptions where_the_peak_needs_it() {
  plan::OverlapOptions options;
  options.only_where_the_peak_needs_it = true;
  options.fuse_only_where_the_peak_needs_it = true;
  return options;
}

// Lowers a plan with segment-level overlap into a placed, measured candidate.
using BuildOverlap = std::function<Status(plan::OverlapResult, CompileCandidate&)>;

double predicted_or_infinity(const CompileCandidate& c) {
  return c.predicted_instructions.value_or(std::numeric_limits<double>::infinity());
}

// The overlap candidate of `unplaced` (overlaps of unfused calls and fused
// blocks only where the peak needs them: `needed`, its lowering, and `fused`,
// that lowering built when the caller has built it) with its fused blocks
// left unfused one more at a time until its prediction is at most `limit`
// (each time the blocks the raised peak no longer needs unfused too): first
// the blocks whose unfusing alone raises the arena by the fewest bytes per
// predicted instruction saved, ties in step order; blocks not predicted
// faster unfused (the larger arena can cost faster primitives their
// workspaces) stay fused. Greedy over each block's own effect, not optimal
// (blocks interact through the peak). nullopt when no such plan is within the
// limit and still fuses or overlaps something.
Result<std::optional<CompileCandidate>> unfuse_within_latency_budget(const ir::Graph& graph,
                                                                     const plan::Plan& unplaced,
                                                                     plan::OverlapResult needed,
                                                                     std::optional<CompileCandidate> fused,
                                                                     double limit, const BuildOverlap& build) {
  const std::vector<ir::NodeId> heads = plan::list_fused_block_heads(needed.plan);
  if (heads.empty()) return std::optional<CompileCandidate>{};
  if (!fused) {
    fused.emplace();
    TINYFIT_RETURN_IF_ERROR(build(std::move(needed), *fused));
  }
  plan::OverlapOptions options = where_the_peak_needs_it();
  std::vector<std::pair<double, size_t>> bytes_per_instruction;  // (bytes gained / instructions saved, block)
  for (size_t i = 0; i < heads.size(); ++i) {
    options.leave_unfused = {heads[i]};
    CompileCandidate alone;
    TINYFIT_RETURN_IF_ERROR(build(plan::apply_overlap(graph, unplaced, options), alone));
    const double saved = predicted_or_infinity(*fused) - predicted_or_infinity(alone);
    if (!(saved > 0.0)) continue;
    const auto gained = static_cast<double>(std::max<int64_t>(alone.arena_bytes - fused->arena_bytes, 0));
    bytes_per_instruction.emplace_back(gained / saved, i);
  }
  std::sort(bytes_per_instruction.begin(), bytes_per_instruction.end());
  options.leave_unfused.clear();
  for (const auto& [ratio, block] : bytes_per_instruction) {
    options.leave_unfused.push_back(heads[block]);
    plan::OverlapResult lowered = plan::apply_overlap(graph, unplaced, options);
    if (lowered.fused + lowered.overlaps == 0) break;
    CompileCandidate within;
    TINYFIT_RETURN_IF_ERROR(build(std::move(lowered), within));
    if (predicted_or_infinity(within) <= limit) {
      within.note += "; latency budget: " + std::to_string(options.leave_unfused.size()) + " of the " +
                     std::to_string(heads.size()) +
                     " fused blocks the peak needs left unfused (fewest bytes per instruction saved first)";
      return std::optional<CompileCandidate>{std::move(within)};
    }
  }
  return std::optional<CompileCandidate>{};
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

Result<CompileCandidate> build_motes_candidate(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                               const analysis::Order& base_order,
                                               std::optional<double> ordinary_instructions,
                                               const CompileOptions& options) {
  CompileCandidate candidate;
  candidate.name = "motes";
  candidate.rank = LatencyRank::kMotes;
  const bool budgeted = options.latency_budget != partition::kNoLatencyBudget;
  TINYFIT_ASSIGN_OR_RETURN(const cost::CostTable* table, cost::find_cost_table(options.target));
  Result<MotesLatency> latency = build_motes_latency(graph, bg, *table);
  if (budgeted && (!latency || !ordinary_instructions)) {
    candidate.note = "motes: a latency budget needs the latency model's prediction of the ordinary plan (" +
                     (latency ? std::string("the ordinary plan was not predicted") : latency.error().message) +
                     "); --latency-budget none searches for the smallest memory";
    return candidate;
  }
  if (!latency) latency = count_extra_calls(graph, bg);

  partition::MotesSearchOptions search_options;
  search_options.sram_bytes = options.sram_bytes;
  search_options.deadline = options.deadline;
  search_options.runs_by_rows = exec::serves_output_rows;
  search_options.runs_by_tokens = exec::serves_output_tokens;
  search_options.ordinary_latency = latency->ordinary;
  search_options.scheme_latency_delta = latency->scheme_delta;
  if (options.progress) {
    search_options.progress = [progress = options.progress](double fraction) { progress("motes", fraction); };
  }
  // The predicted instructions a plan may have: the budget over the ordinary candidate's.
  const std::optional<double> instruction_limit =
      budgeted ? std::optional<double>(options.latency_budget * *ordinary_instructions) : std::nullopt;
  auto ratio_of = [&](const CompileCandidate& c) {
    return c.predicted_instructions.value_or(partition::kNoLatencyBudget) / ordinary_instructions.value_or(1.0);
  };
  // Whether a is a smaller plan than b: the smaller arena, the faster on a tie.
  const auto smaller = [&](const CompileCandidate& a, const CompileCandidate& b) {
    return a.arena_bytes < b.arena_bytes || (a.arena_bytes == b.arena_bytes && ratio_of(a) < ratio_of(b));
  };
  // The smallest plan within the budget so far (the searches below).
  std::optional<CompileCandidate> best;
  std::string over_note, searched_plans;
  int kept_plans = 0;
  const auto keep = [&](CompileCandidate built, const std::string& label) {
    ++kept_plans;
    searched_plans += (searched_plans.empty() ? "" : "; ") + label + ": arena " + std::to_string(built.arena_bytes) +
                      ", predicted " + format_ratio(ratio_of(built));
    if (!best || smaller(built, *best)) best = std::move(built);
  };
  // Lowers a searched state (plan/lower_motes.h), places it and measures it.
  // A plan whose workspaces within its arena are predicted above the budget
  // is also built with the smallest workspaces within the budget
  // (select_primitives): its arena grows, but it may still be the smallest
  // plan within the budget (MCUNetV2-SE-L's overlaps from the inputs' starts:
  // 259,840 B predicted 1.0754x, 260,120 B at 1.0288x). The smallest such
  // plan of a search competes with the searches' plans (keep); the returned
  // plan keeps the workspaces within its arena, so the retries below run as
  // they would without it.
  // Returns nothing for a lowering with producer rates in which no loop
  // walks a second rate: that plan is the same as the one without them.
  std::optional<CompileCandidate> smallest_fitted;
  auto lower_one = [&](const partition::MotesSearchResult& searched, bool inplace, bool refine_loops,
                       const RowLoopLowering& lowering, const std::string& retries,
                       int* loop_refinements) -> Result<std::optional<CompileCandidate>> {
    plan::MotesPlanOptions plan_options;
    plan_options.order = options.techniques.order ? options.order : "given";
    plan_options.inplace = inplace;
    plan_options.rows_in_place = refine_loops;
    plan_options.order_loop_bodies = refine_loops;
    plan_options.row_overlaps = lowering.row_overlaps;
    plan_options.row_overlaps_at_limit = lowering.row_overlaps_at_limit;
    plan_options.row_buffers_in_input = lowering.row_buffers_in_input;
    plan_options.producer_rates = lowering.producer_rates;
    plan_options.deadline = options.deadline;
    if (options.progress) {
      plan_options.progress = [progress = options.progress](double fraction) { progress("motes order", fraction); };
    }
    TINYFIT_ASSIGN_OR_RETURN(plan::MotesPlan lowered,
                             plan::build_motes_plan(graph, bg, base_order, searched.schemes, plan_options));
    if (lowering.producer_rates && !lowered.walks_producer_rates) return std::optional<CompileCandidate>{};
    if (loop_refinements != nullptr) *loop_refinements = lowered.rows_in_place_calls + lowered.bodies_reordered;
    CompileCandidate built;
    built.rank = LatencyRank::kMotes;
    built.plan = std::move(lowered.plan);
    built.techniques = built.plan.techniques;
    for (const std::string& t : built.techniques) built.name += (built.name.empty() ? "" : "+") + t;
    built.note = describe_budget(options.latency_budget) + ": " + searched.note + "; " + lowered.note + retries;
    CompileCandidate fitted = built;  // unplaced
    TINYFIT_RETURN_IF_ERROR(place_and_measure(graph, built, options));
    if (instruction_limit && ratio_of(built) > options.latency_budget) {
      TINYFIT_RETURN_IF_ERROR(place_and_measure(graph, fitted, options, instruction_limit));
      if (ratio_of(fitted) <= options.latency_budget && (!smallest_fitted || smaller(fitted, *smallest_fitted))) {
        fitted.note += "; predicted " + format_ratio(ratio_of(fitted)) + " ordinary's instructions";
        smallest_fitted = std::move(fitted);
      }
    }
    return std::optional<CompileCandidate>{std::move(built)};
  };

  // With overlap on, each state is lowered with and without its loops'
  // outputs over their consumed inputs (plan/lower_row_loop_overlap.h): the
  // overlap adds no kernel work, but a lower peak leaves less room for the
  // workspaces of faster primitives (select_workspaces.h), so the plan with
  // it can be predicted slower. With in-place on, each of those is lowered
  // with the loops refined (their bodies ordered for the fewest live bands,
  // partition/order_loop_body.h, and element-wise calls and Slices over their
  // input's rows, plan/write_rows_in_place.h) and, when a refinement applied,
  // also without: they lower the bytes live at once that they see (bands of
  // rows), but longer-lived buffers can place worse and workspaces can move
  // (NASNet-A ImageNet with calls in place alone: peak 453,584 ->
  // 448,448 B, arena 453,880 -> 482,944 B). Within the budget the smaller
  // arena wins (the faster on a tie); when only one is within, that one;
  // else the faster.
  auto lower = [&](const partition::MotesSearchResult& searched, bool inplace,
                   const std::string& retries) -> Result<CompileCandidate> {
    const auto predicted = [](const CompileCandidate& c) {
      return c.predicted_instructions.value_or(partition::kNoLatencyBudget);
    };
    const auto within = [&](const CompileCandidate& c) {
      return !instruction_limit || predicted(c) <= *instruction_limit;
    };
    // Whether a is better than b: within the budget before not, then the
    // smaller arena (within) or the faster (not), then the faster.
    const auto better = [&](const CompileCandidate& a, const CompileCandidate& b) {
      if (within(a) != within(b)) return within(a);
      if (within(a) && a.arena_bytes != b.arena_bytes) return a.arena_bytes < b.arena_bytes;
      return predicted(a) < predicted(b);
    };
    const auto describe = [&](const std::string& label, const CompileCandidate& c) {
      return label + ": arena " + std::to_string(c.arena_bytes) +
             (c.predicted_instructions && ordinary_instructions
                  ? ", predicted " + format_ratio(*c.predicted_instructions / *ordinary_instructions)
                  : std::string());
    };
    std::optional<CompileCandidate> chosen;
    std::string chosen_label, others;
    const size_t lowerings = options.techniques.overlap ? kRowLoopLowerings.size() : 1;
    for (size_t v = 0; v < lowerings; ++v) {
      const RowLoopLowering& lowering = kRowLoopLowerings[v];
      for (const bool refine_loops : {true, false}) {
        if (refine_loops && !options.techniques.inplace) continue;
        int refinements = 0;
        TINYFIT_ASSIGN_OR_RETURN(std::optional<CompileCandidate> lowered,
                                 lower_one(searched, inplace, refine_loops, lowering, retries, &refinements));
        if (!lowered) break;  // the same plan as a lowering before it (producer rates no loop walks)
        std::string label = std::string(lowering.label) + (refine_loops ? "" : ", loops unrefined");
        if (!chosen || better(*lowered, *chosen)) {
          std::swap(chosen, lowered);
          std::swap(chosen_label, label);
        }
        if (lowered) others += (others.empty() ? "" : "; ") + describe(label, *lowered);
        if (refine_loops && refinements == 0) break;  // without: the same plan
      }
    }
    TINYFIT_CHECK(chosen.has_value()) << "the first row-loop lowering always builds a plan";
    if (!others.empty()) chosen->note += "; chosen " + chosen_label + " over " + others;
    return std::move(*chosen);
  };

  // The budget holds for the plan that is built: its predicted instructions
  // (in-place merges and primitives included) over the ordinary candidate's.
  // The search prices states by ordinary execution on the fastest primitives
  // plus the schemes' deltas (motes_latency.h), so it starts from the same
  // limit in those terms. Each searched state is lowered with in-place merges
  // (when allowed) and without: the smaller arena within the budget wins, the
  // faster on a tie. A state whose plans are both above the limit sends the
  // search back with the limit lowered by the overshoot, a few times; when no
  // plan fits, the candidate is not built.
  const double limit = instruction_limit.value_or(partition::kNoLatencyBudget);
  // Never below 1: the state without loops stays admissible, so the search
  // never trades memory for speed (the ordinary candidate's primitives can be
  // predicted a little faster than every call on its fastest primitive).
  const double first_search_budget =
      budgeted ? std::max(1.0, limit / latency->ordinary) : partition::kNoLatencyBudget;
  // With overlaps on, the search runs twice: scoring states with the row-loop
  // overlaps their lowering declares (it finds the states only the overlaps
  // make small: MCUNet-320KB, MobileNetV2-224), and without (the search
  // models neither in-place merges nor the lowering's order search, and on a
  // tie of its peak it keeps the faster state: on MCUNetV2-SE-L the scoring
  // with overlaps ties at a peak the in-place merges remove and lands on a
  // larger plan). Every plan within the budget, of either search and of any
  // retry, and each search's smallest plan with workspaces fitted to the
  // budget, competes: the smallest arena wins, the faster on a tie; a later
  // retry never loses an earlier one's plan.
  // Loops with their wide tensors' later readers (split_input_readers.h) are
  // candidates of the first search only: NASNet-A's plan comes from them
  // (scored with overlaps), while in the search without overlaps, whose
  // estimates are furthest from what the lowering makes, they led
  // AmoebaNet's to a larger arena (538,048 B against 500,864).
  std::vector<bool> scorings{false};
  if (options.techniques.overlap) scorings.insert(scorings.begin(), true);
  // The first search may take two thirds of the time left, the second the
  // rest: the first one's extra candidates must not leave the second no time
  // (under --latency-budget none they ran out of AmoebaNet's share), and an
  // equal share cut NASNet-A's first search (at --time-limit 45, and at the
  // default 60 s on a loaded machine).
  constexpr double kKeptForSecondSearch = 1.0 / 3;
  for (const bool scored_with_overlaps : scorings) {
    if (best && options.deadline.expired()) break;
    const bool first = scored_with_overlaps == scorings.front();
    search_options.deadline =
        first && scorings.size() > 1 ? options.deadline.keeping(kKeptForSecondSearch) : options.deadline;
    search_options.row_overlaps = scored_with_overlaps;
    search_options.split_input_readers = first;
    const std::string label =
        scored_with_overlaps ? "searched with row-loop overlaps" : "searched without row-loop overlaps";
    double search_budget = first_search_budget;
    std::string retries = "; " + label;
    constexpr int kSearches = 3;
    for (int attempt = 0;; ++attempt) {
      search_options.latency_budget = search_budget;
      const partition::MotesSearchResult searched =
          partition::search_motes_schemes(graph, bg, base_order, search_options);
      TINYFIT_ASSIGN_OR_RETURN(CompileCandidate built, lower(searched, options.techniques.inplace, retries));
      if (!budgeted) {
        keep(std::move(built), label);
        // As under a budget (below), the state lowered without in-place
        // merges competes: its arena can be the smaller (the merges change
        // the order search's room), and a plan without a budget must never
        // be larger than the one a budget chooses.
        if (options.techniques.inplace) {
          TINYFIT_ASSIGN_OR_RETURN(CompileCandidate unmerged,
                                   lower(searched, false, retries + "; in-place merges left out"));
          keep(std::move(unmerged), label + ", in-place merges left out");
        }
        break;
      }
      double predicted = built.predicted_instructions.value_or(partition::kNoLatencyBudget);
      if (options.techniques.inplace) {
        // In-place merges can cost instructions (line-buffer kernels, fewer
        // primitives' workspaces) for no memory: the plan without them wins
        // when it fits the budget with no larger arena, or when only it fits.
        TINYFIT_ASSIGN_OR_RETURN(CompileCandidate unmerged,
                                 lower(searched, false, retries + "; in-place merges left out (predicted " +
                                                            format_ratio(ratio_of(built)) + " with them)"));
        predicted = std::min(predicted, unmerged.predicted_instructions.value_or(partition::kNoLatencyBudget));
        const bool merged_fits = ratio_of(built) <= options.latency_budget;
        if (ratio_of(unmerged) <= options.latency_budget &&
            (!merged_fits || unmerged.arena_bytes <= built.arena_bytes)) {
          built = std::move(unmerged);
        }
      }
      if (ratio_of(built) <= options.latency_budget) {
        built.note += "; predicted " + format_ratio(ratio_of(built)) + " ordinary's instructions";
        keep(std::move(built), label);
        break;
      }
      const std::string over = "predicted " + format_ratio(predicted / *ordinary_instructions) + " with " +
                               std::to_string(searched.schemes.size()) + " loops";
      if (attempt + 1 == kSearches || searched.schemes.empty() || search_budget <= 1.0 ||
          predicted == partition::kNoLatencyBudget || options.deadline.expired()) {
        over_note = over;
        break;
      }
      retries += "; searched again after " + over;
      search_budget =
          std::max(1.0, std::min(search_budget, searched.latency / latency->ordinary) * limit / predicted);
    }
    if (smallest_fitted) {
      keep(std::move(*smallest_fitted), label + ", workspaces fitted to the budget");
      smallest_fitted.reset();
    }
  }
  if (!best) {
    candidate.note = "motes: no plan within " + describe_budget(options.latency_budget) + " (" + over_note + ")";
    return candidate;
  }
  if (scorings.size() > 1 || kept_plans > 1) best->note += "; the searches' plans: " + searched_plans;
  return std::move(*best);
}

Result<std::optional<CompileCandidate>> build_overlap_candidate(const ir::Graph& graph, const CompileCandidate& base,
                                                                std::optional<double> ordinary_instructions,
                                                                const CompileOptions& options) {
  plan::Plan unplaced = base.plan;
  for (plan::PlanBuffer& buffer : unplaced.buffers) buffer.offset = -1;
  unplaced.arena_bytes = 0;
  auto build = [&](plan::OverlapResult overlap, CompileCandidate& candidate) -> Status {
    candidate.name = base.name + "+overlap";
    candidate.rank = LatencyRank::kOverlap;
    candidate.plan = std::move(overlap.plan);
    candidate.techniques = candidate.plan.techniques;
    candidate.note = base.note.empty() ? overlap.note : base.note + "; " + overlap.note;
    return place_and_measure(graph, candidate, options);
  };
  plan::OverlapResult overlap = plan::apply_overlap(graph, unplaced);
  if (overlap.fused + overlap.overlaps == 0) return std::optional<CompileCandidate>{};
  CompileCandidate candidate;
  TINYFIT_RETURN_IF_ERROR(build(std::move(overlap), candidate));
  // Under --sram, the variant that fits with the fewest predicted
  // instructions; otherwise a variant replaces the plan with every fusion
  // and overlap only when it places in no more bytes and is predicted no
  // slower (a fused block or an overlapped call runs a slower kernel than the
  // ordinary plan's: a faster plan of the same memory wins, a smaller but
  // slower one does not: kws's unfused stem, 8,444 B at 1.30x against 9,288 B
  // at 0.93x on the emulated M4).
  auto predicted = [](const CompileCandidate& c) {
    return c.predicted_instructions.value_or(std::numeric_limits<double>::infinity());
  };
  auto better = [&](const CompileCandidate& a, const CompileCandidate& b) {
    if (options.sram_bytes) {
      const bool a_fits = a.arena_bytes <= *options.sram_bytes, b_fits = b.arena_bytes <= *options.sram_bytes;
      if (a_fits != b_fits) return a_fits;
      if (a_fits) return std::make_pair(predicted(a), a.arena_bytes) < std::make_pair(predicted(b), b.arena_bytes);
    }
    return a.arena_bytes <= b.arena_bytes && predicted(a) <= predicted(b) &&
           (a.arena_bytes < b.arena_bytes || predicted(a) < predicted(b));
  };
  // The variants: the overlaps of unfused calls only where the peak needs
  // them (the others run the ordinary plan's kernels), then also the fusions
  // only where the peak needs them (kept: the budget's unfusing starts from
  // it), and under --sram where the budget needs them.
  std::vector<plan::OverlapOptions> variants(1);
  variants[0].only_where_the_peak_needs_it = true;
  variants.push_back(where_the_peak_needs_it());
  if (options.sram_bytes) {
    variants.push_back(variants[1]);
    variants[2].fusion_peak_allowance_bytes = *options.sram_bytes;
  }
  constexpr size_t kNeeded = 1;  // the index of where_the_peak_needs_it()
  std::optional<plan::OverlapResult> needed;
  std::optional<CompileCandidate> needed_built;
  for (size_t v = 0; v < variants.size(); ++v) {
    plan::OverlapResult lowered = plan::apply_overlap(graph, unplaced, variants[v]);
    if (v == kNeeded) needed = lowered;
    if (lowered.dropped + lowered.unfused == 0 || lowered.fused + lowered.overlaps == 0) continue;
    CompileCandidate other;
    TINYFIT_RETURN_IF_ERROR(build(std::move(lowered), other));
    if (v == kNeeded) needed_built = other;
    if (better(other, candidate)) candidate = std::move(other);
  }
  // Without --sram the compile keeps the smallest plan within the latency
  // budget: when this one is predicted over it, blocks are left unfused
  // until it is within (the least memory gained per instruction saved
  // first), so that the candidate can be chosen at all.
  if (!options.sram_bytes && ordinary_instructions && !std::isinf(options.latency_budget)) {
    const double limit = *ordinary_instructions * options.latency_budget;
    if (predicted(candidate) > limit) {
      TINYFIT_ASSIGN_OR_RETURN(std::optional<CompileCandidate> within,
                               unfuse_within_latency_budget(graph, unplaced, std::move(*needed),
                                                            std::move(needed_built), limit * (1.0 + 1e-9), build));
      if (within) candidate = std::move(*within);
    }
  }
  return std::optional<CompileCandidate>{std::move(candidate)};
}

bool fits_budget(const CompileCandidate& candidate, int64_t sram_bytes) {
  return candidate.built && candidate.arena_bytes <= sram_bytes;
}

}  // namespace tinyfit::driver
