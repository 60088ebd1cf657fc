// Apply (MOTES Algorithm 1, lines 14 and 17): a set of partition schemes
// lowered to a Plan, with the schedule of the fine-grained graph they make.
//
// Each row scheme becomes one row loop (plan/lower_row_loop.h: carried
// buffers and BlockConcat copies instead of recomputation, inputs read
// through windowed views, outputs written by rows into their whole buffers).
// The fine-grained graph (each loop one operator, contract_loops.h) is
// ordered by the order search the caller names, with in-place merges of the
// operators outside the loops when asked; MOTES uses reverse post-order here,
// tinyfit searches as it does for plain operator orders.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "ir/graph.h"
#include "partition/partition_scheme.h"
#include "plan/plan.h"
#include "support/deadline.h"
#include "support/diag.h"

namespace tinyfit::plan {

struct MotesPlanOptions {
  std::string order = "best";  // schedule::find_order_algorithm name for the fine-grained graph
  bool inplace = false;        // merge operators outside the loops in place (analysis/inplace.h)
  // Element-wise calls in the loops write over their input's rows
  // (plan/write_rows_in_place.h): no kernel work, fewer live bytes.
  bool rows_in_place = false;
  // Each loop's operators in the order that keeps the fewest bytes of
  // partial buffers live at once (partition/order_loop_body.h).
  bool order_loop_bodies = false;
  // Each loop writes an output over the input rows it has consumed
  // (plan/lower_row_loop_overlap.h): no kernel work, fewer live bytes.
  bool row_overlaps = false;
  bool row_overlaps_at_limit = false;  // apply_row_loop_overlaps's at_limit
  // With row_overlaps_at_limit: each loop's row buffers below its output, in
  // the consumed input (plan/lower_row_buffer_overlap.h).
  bool row_buffers_in_input = false;
  // Each row loop may walk several steps per row of its sink, its producers
  // before a stride-2 window one row a step (RowLoopSpec::most_rate), where
  // that needs fewer bytes of loop buffers.
  bool producer_rates = false;
  Deadline deadline;
  std::function<void(double)> progress;  // of the order search
};

struct MotesPlan {
  Plan plan;              // not yet placed
  analysis::Order order;  // of bg: each loop's operators consecutive
  std::string note;       // the order search's note
  // With producer_rates: whether some loop walks several steps per row of
  // its sink. When none does, the plan is the one without producer_rates.
  bool walks_producer_rates = false;
  // With rows_in_place: the calls put in place (0: the plan is the one without).
  int rows_in_place_calls = 0;
  // With order_loop_bodies: the loops whose body order changed.
  int bodies_reordered = 0;
};

// The plan's loop axis of a scheme's axis.
LoopAxis to_loop_axis(partition::PartitionAxis axis);

// What: the plan running `schemes` as row (and token) loops, ordered by the better of
// `base_order` contracted (contract_order) and the order search of the
// fine-grained graph (both scored with the loops' internal bytes from
// row_geometry.h). techniques gets "motes" (and "inplace" when merges were
// made, "rowoverlap" when a loop declares an overlap, "concatinplace" when
// operators write Concat inputs straight into the Concat's output:
// plan/write_concat_in_place.h).
// Requires: bg == build_buffer_graph(graph), with its inplace_options;
// base_order topological for bg; schemes from search_motes_schemes (row or
// token schemes over disjoint, convex operator sets); options.order a known name.
// Guarantees: verify_plan holds (before placement); count_plan_macs equals
// count_graph_macs (no recomputation). Errors: what build_row_loop_plan
// reports (exit 2 for a loop it cannot build).
Result<MotesPlan> build_motes_plan(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                   const analysis::Order& base_order,
                                   const std::vector<partition::PartitionScheme>& schemes,
                                   const MotesPlanOptions& options);

}  // namespace tinyfit::plan
