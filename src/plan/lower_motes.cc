#include "plan/lower_motes.h"

#include <algorithm>
#include <utility>

#include "partition/contract_loops.h"
#include "partition/order_loop_body.h"
#include "partition/row_geometry.h"
#include "plan/lower_row_buffer_overlap.h"
#include "plan/lower_row_loop.h"
#include "plan/lower_row_loop_overlap.h"
#include "plan/plan_walk.h"
#include "plan/write_concat_in_place.h"
#include "plan/write_rows_in_place.h"
#include "schedule/order_best.h"
#include "schedule/order_peak.h"

namespace tinyfit::plan {

namespace {

// Whether a view of some call follows a loop through a bound with a divisor:
// the sink of a loop walking several steps per row of it (lower_row_loop.h).
bool has_divided_bounds(const Plan& plan) {
  bool divided = false;
  const auto check = [&divided](const View& view) {
    for (const Sweep& sweep : view.sweeps) {
      divided = divided || sweep.first.divisor > 1 || sweep.last.divisor > 1 || sweep.base.divisor > 1;
    }
  };
  const Status walked = walk_calls(plan.steps, [&](const KernelCall& call, LoopNest) -> Status {
    for (const View& view : call.inputs) check(view);
    for (const View& view : call.outputs) check(view);
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << "walking a plan's calls failed";
  return divided;
}

}  // namespace

LoopAxis to_loop_axis(partition::PartitionAxis axis) {
  switch (axis) {
    case partition::PartitionAxis::kRows: return LoopAxis::kRows;
    case partition::PartitionAxis::kTokens: return LoopAxis::kTokens;
    case partition::PartitionAxis::kChannels: return LoopAxis::kChannels;
  }
  return LoopAxis::kRows;
}

Result<MotesPlan> build_motes_plan(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                   const analysis::Order& base_order,
                                   const std::vector<partition::PartitionScheme>& schemes,
                                   const MotesPlanOptions& options) {
  std::vector<partition::LoopSummary> loops;
  std::vector<RowLoopSpec> specs;
  std::vector<partition::RowGeometry> geometries;
  for (const partition::PartitionScheme& scheme : schemes) {
    TINYFIT_CHECK(scheme.axis != partition::PartitionAxis::kChannels) << "only row and token schemes are lowered";
    TINYFIT_ASSIGN_OR_RETURN(partition::RowGeometry geometry, partition::compute_row_geometry(graph, bg, scheme));
    loops.push_back({scheme.operators, geometry.internal_bytes(), partition::describe_scheme(bg, scheme)});
    geometries.push_back(std::move(geometry));
    specs.push_back({scheme.operators, scheme.tile, to_loop_axis(scheme.axis), options.producer_rates ? 4 : 1});
  }
  const partition::ContractedGraph cg = partition::contract_loops(bg, loops);

  // The fine-grained graph's schedule: the searched order unless the base
  // order, contracted, is no worse (the search saw estimates of the same
  // internal bytes, so the two compare like for like).
  schedule::ScoredOrder scored = schedule::score_order(cg.graph, contract_order(bg, cg, base_order), options.inplace);
  const schedule::OrderAlgorithm* algorithm = schedule::find_order_algorithm(options.order);
  TINYFIT_CHECK(algorithm != nullptr) << "unknown order '" << options.order << "'";
  schedule::OrderOptions order_options;
  order_options.inplace = options.inplace;
  order_options.deadline = options.deadline;
  order_options.progress = options.progress;
  schedule::OrderResult searched = algorithm->run(cg.graph, order_options);
  MotesPlan result;
  result.note = "fine-grained graph ordered by the base order";
  if (searched.peak_bytes < scored.peak_bytes) {
    scored = {std::move(searched.order), std::move(searched.inplace_choices), searched.peak_bytes};
    result.note = "fine-grained graph ordered by '" + options.order + "'" +
                  (searched.note.empty() ? "" : ": " + searched.note);
  }

  result.order = partition::expand_order(cg, loops, scored.order);
  if (options.order_loop_bodies) {
    for (size_t l = 0; l < schemes.size(); ++l) {
      // The loop's operators are consecutive in the order.
      const std::vector<int>& members = schemes[l].operators;
      const auto first = std::find_if(result.order.begin(), result.order.end(), [&](int op) {
        return std::find(members.begin(), members.end(), op) != members.end();
      });
      TINYFIT_CHECK(first != result.order.end() && result.order.end() - first >= std::ssize(members))
          << "a loop's operators are consecutive in the expanded order";
      const std::vector<int> body(first, first + std::ssize(members));
      const std::vector<int> ordered = partition::order_loop_body(graph, bg, body, geometries[l]).ops;
      if (ordered == body) continue;
      std::copy(ordered.begin(), ordered.end(), first);
      ++result.bodies_reordered;
    }
    if (result.bodies_reordered > 0) {
      result.note += "; " + std::to_string(result.bodies_reordered) + " loop bodies ordered for fewer live rows";
    }
  }
  const analysis::InplaceChoices choices = partition::expand_inplace_choices(cg, scored.inplace_choices);
  bool merged = false;
  for (int choice : choices) merged = merged || choice >= 0;
  const analysis::BufferGraph lowered =
      merged ? analysis::apply_inplace_choices(bg, result.order, choices).graph : bg;
  TINYFIT_ASSIGN_OR_RETURN(result.plan, build_row_loop_plan(graph, lowered, result.order, specs));
  result.walks_producer_rates = options.producer_rates && has_divided_bounds(result.plan);
  result.plan.techniques = {"motes"};
  if (merged) result.plan.techniques.push_back("inplace");
  if (options.rows_in_place) {
    RowsInPlaceResult in_place = write_rows_in_place(graph, std::move(result.plan));
    result.plan = std::move(in_place.plan);
    result.rows_in_place_calls = in_place.calls_in_place;
    if (!in_place.note.empty()) result.note += "; " + in_place.note;
  }
  if (options.row_overlaps) {
    RowLoopOverlapResult overlapped = apply_row_loop_overlaps(std::move(result.plan), 4, options.row_overlaps_at_limit);
    result.plan = std::move(overlapped.plan);
    if (!overlapped.note.empty()) result.note += "; " + overlapped.note;
    if (options.row_overlaps_at_limit && options.row_buffers_in_input) {
      RowLoopOverlapResult rows = apply_row_buffer_overlaps(std::move(result.plan));
      result.plan = std::move(rows.plan);
      if (!rows.note.empty()) result.note += "; " + rows.note;
    }
  }
  ConcatInPlaceResult concats = write_concat_in_place(graph, std::move(result.plan));
  result.plan = std::move(concats.plan);
  if (!concats.note.empty()) result.note += "; " + concats.note;
  return result;
}

}  // namespace tinyfit::plan
