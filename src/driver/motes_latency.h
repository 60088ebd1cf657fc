// MOTES's Latency(G') (Algorithm 1) from the latency model (cost/): the
// predicted instructions of ordinary execution, and what one partition
// scheme's row loop adds to them.
//
// The model is linear in calls (cost/predict.h), and a row loop changes only
// the calls of its own operators, so a state's prediction is ordinary's plus
// the sum of its schemes' deltas: each delta is the prediction of the loop
// alone (its calls in every iteration, its BlockConcat copies, its loop
// control) minus that of its operators' whole calls in the ordinary plan.
// Both with every convolution on its fastest primitive (the workspaces
// exec/add_kernel_workspaces.h adds), as compile gives the ordinary plan when
// memory allows. The lowered plan's own prediction (in-place merges, the
// primitives its arena leaves room for) is checked by the caller; the deltas
// are what the search compares.
#pragma once

#include <functional>

#include "analysis/buffer_graph.h"
#include "cost/cost_table.h"
#include "ir/graph.h"
#include "partition/partition_scheme.h"
#include "partition/row_geometry.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct MotesLatency {
  double ordinary = 0;  // predicted instructions of the ordinary plan (given order, whole operators, fastest primitives)
  // Predicted extra instructions of running `scheme` as a row loop; +infinity
  // when its loop cannot be built or counted (the search then never admits it
  // under a finite budget).
  std::function<double(const partition::PartitionScheme&, const partition::RowGeometry&)> scheme_delta;
};

// Requires: bg == build_buffer_graph(graph); graph and bg outlive the result.
// Errors: what predicting the ordinary plan reports (a call no kernel serves,
// a kernel the table has no row for).
Result<MotesLatency> build_motes_latency(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                         const cost::CostTable& table);

}  // namespace tinyfit::driver
