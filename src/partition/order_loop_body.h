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
// per iteration do not depend on it: a reader follows its producers). The
// geometry scores the body in this order (RowGeometry::peak_partial_bytes),
// so the MOTES search sees the bands the lowering will hold.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/buffer_graph.h"
#include "ir/graph.h"
#include "partition/row_geometry.h"

namespace tinyfit::partition {

struct LoopBodyOrder {
  std::vector<int> ops;              // the body's operators in this order
  int64_t peak_partial_bytes = 0;    // the most bytes of bands and workspaces live at one call in it
};

// What: `ops` (BufferGraph operators of one row loop, in a topological
// order) reordered by the hierarchical ordering (schedule/order_hierarchical.h)
// of the body's graph: its operators with their workspaces, and as buffers
// the tensors they make, each at its partial buffer's bytes (rows_held x
// row_bytes of `geometry`'s tensors when kPartial; others 0). `ops` unchanged
// unless the new order's most bytes live at once are fewer.
// Requires: geometry's tensors as compute_row_geometry lays them out for a
// scheme over exactly `ops` (its partial peak may be either order's). Guarantees: a permutation of ops, topological;
// deterministic. O(n^2).
LoopBodyOrder order_loop_body(const ir::Graph& graph, const analysis::BufferGraph& bg, const std::vector<int>& ops,
                              const RowGeometry& geometry);

}  // namespace tinyfit::partition
