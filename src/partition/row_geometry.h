// The rows every tensor of a row scheme holds, iteration by iteration: the
// arithmetic behind a row loop over a sub-graph (any DAG whose operators map
// output rows to input rows by an identity or a sliding window), without
// recomputation (MOTES §4.4, Fig. 7(e)).
//
// The loop walks the rows of its last operator's output (the sink; every
// other operator feeds a later one, or is another sink with as many rows,
// whose output the loop hands on: plan/lower_row_loop.h) in chunks of `tile`; iteration i ends at sink row x_i = min((i+1)*tile,
// extent). Walking the operators backwards, each tensor T made in the loop
// must be complete up to
//     end_T(i) = max over its readers c in the loop of the last input row
//                c's window needs for c's rows [0, end_c(i))     (MemoriaNova eq. 1)
// (a sink: x_i), and all of it after the last iteration (so every row is
// computed once: the MACs are ordinary execution's). Iteration i computes T's
// rows [end_T(i-1), end_T(i)). The rows still needed start at
//     need_T(i) = min over readers c of the first input row c's window needs
//                 for c's next rows [end_c(i-1), ...),
// so T's buffer holds rows [base_T(i), end_T(i)) with base_T(i) =
// min(need_T(i), end_T(i-1)). Two refinements, as plan/lower_row_loop.h
// lowers the loop:
//   - lag: the loop may walk `lag` steps before the sink's first row (x_i =
//     (i+1)*tile - lag), the readers' windows extended below row 0 while
//     they have no row yet, so that producers fill their buffers during the
//     lag instead of computing their whole lead in the sink's first
//     iteration; kept when it holds fewer bytes;
//   - eager operators: an operator may compute every row its inputs made in
//     the loop already hold (more than its readers need), so that a tensor
//     whose readers sit at very different depths (NASNet's stem output, read
//     by deep separable convolutions and by a shallow factorized reduce)
//     need not keep the rows between them: the shallow reader's (smaller)
//     output keeps them instead. Which operators are eager is a greedy
//     choice of the fewest bytes kept (from none, and from all).
// How a tensor is held follows:
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

// kAccumulated: the output of a global pool ending the loop
// (accumulates_rows): an int32 accumulator per channel, carried over the
// loop; the (one-pixel) output itself is finished after it.
enum class RowHolding { kWhole, kPartial, kCarried, kAccumulated };

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
  // Steps the loop walks before the sink's first row (plan/lower_row_loop.h):
  // iteration i ends at sink row clamp((i+1)*tile - lag, 0, extent).
  int64_t lag = 0;
  int64_t iterations = 0;
  std::vector<TensorRows> tensors;  // the loop's inputs (ascending id), then what it makes (body order)
  // Bytes of the loop's own buffers live over the whole loop (carried), and
  // the most bytes of partial buffers and workspaces live at one call, in
  // the body's order the lowering runs (partition/order_loop_body.h).
  int64_t carried_bytes = 0;
  int64_t peak_partial_bytes = 0;
  // BlockConcat copies per inference: calls and bytes moved.
  int64_t copy_calls = 0;
  int64_t copied_bytes = 0;

  int64_t internal_bytes() const { return carried_bytes + peak_partial_bytes; }
  const TensorRows* find(ir::TensorId tensor) const;
};

// The axis a loop walks on each tensor (the rows of NHWC tensors, the tokens
// of [.., tokens, features] ones), found from the operator declarations
// (ir::OpDecl::map_axes) backwards from the sink: a reader's output axis
// links to one axis of each input (an identity or a sliding window), and a
// Reshape (an alias) passes an axis on when its declaration links it (the
// same extent, the same element counts before and after it, so a range of
// it is the same bytes in both shapes). An input none of whose axes the
// walked output axis links to is read whole in every iteration (the keys and
// values of attention in a loop over query tokens); it must come from before
// the loop.
//
// How an operator of the loop reads one activation input:
struct LoopRead {
  ir::TensorId tensor = ir::kNoTensor;  // as the node names it (an alias of a loop tensor included)
  int axis = -1;                        // the walked axis of `tensor`; -1: read whole every iteration
  ir::AxisRole role = ir::AxisRole::kIdentity;  // kIdentity or kWindow
  ir::Window window;
  bool broadcast = false;  // the walked axis has extent 1: its one row is read by every output row
  // The loop tensor whose buffer `tensor` is (itself, or the tensor a
  // Reshape chain starts at), and the walked axis there; kNoTensor for an
  // input from before the loop.
  ir::TensorId source = ir::kNoTensor;
  int source_axis = -1;
};

struct LoopOperatorAxes {
  int op = -1;  // BufferGraph operator index
  // The row loop's sink is a global pool it accumulates
  // (ends_in_accumulated_pool): it reads its input's rows one to one (also
  // of a one-row input), the loop walking them; its output holds no rows.
  bool accumulates = false;
  const ir::Node* node = nullptr;
  ir::TensorId output = ir::kNoTensor;
  int output_axis = -1;
  std::vector<LoopRead> reads;  // one per activation input (present, not constant), node input order
};

// The walked axis of a loop's sink of `axis` kind: rows: axis 1 of an NHWC
// tensor; tokens: the second-to-last axis of a rank-2 or rank-3 tensor; -1
// otherwise.
int find_sink_axis(PartitionAxis axis, const ir::Tensor& sink);

// What: the walked axes of a loop over `ops` (BufferGraph operators in the
// order the loop runs them; the last is the sink) whose sink walks
// `sink_axis`.
// Errors (kBadCommandLine, one line naming the node): an operator with
// other than one output, an output no later operator reads that has other
// rows (tokens) than the sink's (else it is another sink, walked on the same
// axis), two readers walking different axes of one tensor,
// a loop tensor read whole or through an alias that does not keep the axis.
// A row loop (`whole_reads` false) reads every input by rows: an input
// without a link to the walked axis is an error there too.
Result<std::vector<LoopOperatorAxes>> find_loop_axes(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                                     const std::vector<int>& ops, int sink_axis, bool whole_reads);

// What: the operators of `ops` (BufferGraph indices, ascending: a topological
// order) that a loop ending at the last one, walking `sink_axis` of its
// output, runs by rows: the sink, and every operator whose output a chosen
// one reads through a walked axis (find_loop_axes' links). The others (the
// keys and values of attention, read whole) stay outside the loop. Empty when
// the chosen set is not convex (an operator left out depends on the loop and
// feeds it).
// Guarantees: ascending; a subset of ops. O(ops x inputs x aliases).
std::vector<int> select_loop_operators(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                       const std::vector<int>& ops, int sink_axis);

// What: the geometry of `scheme` (axis kRows or kTokens; per tensor, the
// axis find_loop_axes gives).
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
