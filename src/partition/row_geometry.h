// The rows every tensor of a row scheme holds, iteration by iteration: the
// arithmetic behind a row loop over a sub-graph (any DAG whose operators map
// output rows to input rows by an identity or a sliding window), without
// recomputation (MOTES §4.4, Fig. 7(e)).
//
// The loop walks the rows of its last operator's output (the sink; every
// other operator feeds a later one, as plan/lower_row_loop.h requires) in
// chunks of `tile`; iteration i ends at sink row x_i = min((i+1)*tile,
// extent). Walking the operators backwards, each tensor T made in the loop
// must be complete up to
//     end_T(i) = max over its readers c in the loop of the last input row
//                c's window needs for c's rows [0, end_c(i))     (MemoriaNova eq. 1)
// (the sink: x_i), and all of it after the last iteration (so every row is
// computed once: the MACs are ordinary execution's). Iteration i computes T's
// rows [end_T(i-1), end_T(i)). The rows still needed start at
//     need_T(i) = min over readers c of the first input row c's window needs
//                 for c's next rows [end_c(i-1), ...),
// so T's buffer holds rows [base_T(i), end_T(i)) with base_T(i) =
// min(need_T(i), end_T(i-1)). How a tensor is held follows:
//   - kWhole: an input of the loop or an output it hands on (V_O): the whole
//     buffer, read and written through views;
//   - kPartial: no row outlives its iteration (base == end of the previous
//     iteration every time): a buffer of the iteration's rows, local to it;
//   - kCarried: rows are kept for the next iteration; at the start of each
//     iteration whose base moved, a copy moves the kept rows [base_T(i),
//     end_T(i-1)) to the front (BlockConcat); the buffer's height is the most
//     rows held at once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/buffer_graph.h"
#include "ir/graph.h"
#include "partition/partition_scheme.h"
#include "support/diag.h"

namespace tinyfit::partition {

enum class RowHolding { kWhole, kPartial, kCarried };

struct TensorRows {
  ir::TensorId tensor = ir::kNoTensor;
  RowHolding holding = RowHolding::kWhole;
  int producer = -1;         // BufferGraph operator index in the scheme, -1 for an input of the loop
  int64_t row_bytes = 0;     // bytes of one row
  int64_t rows = 0;          // the tensor's rows
  int64_t rows_held = 0;     // buffer height: kWhole: rows; else the most rows held at once
  // Per iteration (tensors made in the loop; empty for inputs):
  std::vector<int64_t> end;   // rows complete after it
  std::vector<int64_t> base;  // first row its buffer holds during it (kWhole: 0)
};

struct RowGeometry {
  int64_t extent = 0;      // sink rows
  int64_t tile = 0;
  int64_t iterations = 0;
  std::vector<TensorRows> tensors;  // the loop's inputs (ascending id), then what it makes (body order)
  // Bytes of the loop's own buffers live over the whole loop (carried), and
  // the most bytes of partial buffers and workspaces live at one call.
  int64_t carried_bytes = 0;
  int64_t peak_partial_bytes = 0;
  // BlockConcat copies per inference: calls and bytes moved.
  int64_t copy_calls = 0;
  int64_t copied_bytes = 0;

  int64_t internal_bytes() const { return carried_bytes + peak_partial_bytes; }
  const TensorRows* find(ir::TensorId tensor) const;
};

// The window an operator reads input `input_index`'s rows through (identity
// when the link is an identity), or nullopt when its output rows do not map
// to that input's rows one range to one range (a reduction over rows, a
// reshape that mixes them). An input whose rows are broadcast (extent 1) maps
// to the identity of one row.
std::optional<ir::Window> find_row_window(const ir::Graph& graph, const ir::Node& node, size_t input_index);

// What: the geometry of `scheme` (axis kRows).
// Requires: scheme from make_partition_scheme on this graph and bg.
// Guarantees: every read of every call lies inside what its input's buffer
// holds in that iteration (checked; a failure is an internal error), every
// row of every tensor made in the loop is computed exactly once. Errors
// (kInternal, one line): an operator whose rows do not map by a window, a
// tensor other than the sink that no operator of the loop reads.
// O(iterations x operators x inputs).
Result<RowGeometry> compute_row_geometry(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                         const PartitionScheme& scheme);

}  // namespace tinyfit::partition
