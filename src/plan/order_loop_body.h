// The order of a row loop's operators within an iteration. A loop buffer
// that is carried, and every whole tensor the loop reads or hands on, is live
// over the whole loop whatever the order; a partial buffer (a band of rows
// no later iteration needs, partition/row_geometry.h kPartial) lives from
// its writer to its last reader in the iteration, so the order of the body
// decides how many of them are live at once. The fine-grained graph's order
// keeps the loop's operators in the base order, which runs NASNet's
// factorized reduce at the end of its first loop's body: the stem's ReLU
// rows it reads (14,336 B) stay live through both stem cells. Any
// topological order of the body is a valid loop body (the geometry's rows
// per iteration do not depend on it: a reader follows its producers).
#pragma once

#include <vector>

#include "analysis/buffer_graph.h"
#include "ir/graph.h"
#include "partition/row_geometry.h"

namespace tinyfit::plan {

// What: `ops` (BufferGraph operators of one row loop, in a topological
// order) reordered by the hierarchical ordering (schedule/order_hierarchical.h)
// of the body's graph: its operators, and as buffers the tensors they make,
// each of its partial buffer's bytes (rows_held x row_bytes; others 0).
// Returns `ops` unchanged unless the new order's most partial bytes live at
// once are fewer.
// Requires: geometry is compute_row_geometry of a scheme over exactly `ops`.
// Guarantees: a permutation of ops, topological; deterministic. O(n^2).
std::vector<int> order_loop_body(const ir::Graph& graph, const analysis::BufferGraph& bg, const std::vector<int>& ops,
                                 const partition::RowGeometry& geometry);

}  // namespace tinyfit::plan
