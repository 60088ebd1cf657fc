// In-place execution (TinyEngine's technique, an option on top of ordinary
// execution): an operator writes its output over an input buffer that dies at
// that operator, so the two tensors occupy one buffer and the memory profile
// counts their bytes once.
//
// Which operators may do it is data (ir::OpDecl::inplace):
//  - kElementwise: the output has the shape and element size of the input it
//    overwrites (the broadcast operand of a binary op never qualifies); the
//    kernel reads element i before it writes element i. No workspace.
//  - kLineBuffer (depthwise convolution, channel multiplier 1, batch 1): the
//    output is written row by row over the input through a small line buffer
//    of pending output rows, added to the operator's workspace_bytes; see
//    compute_line_buffer_rows for the exact count.
// An input qualifies only when its last consumer in the order is this
// operator and it is neither a model input (the caller owns it) nor a model
// output.
//
// Model: the output's buffer is merged into the input's buffer (bytes = the
// larger of the two, consumers joined), so every later analysis and the
// placement see one buffer and need no declared overlap. Limit: a buffer
// cannot shrink, so an output smaller than its input (a stride-2 depthwise)
// keeps the input's size for its whole life; such a merge is kept only if it
// does not raise the order's peak (checked greedily, step by step, O(n) per
// candidate).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "ir/graph.h"
#include "ir/op_decl.h"

namespace tinyfit::analysis {

struct InplaceMerge {
  int op = -1;                 // operator index (same in both graphs)
  int buffer = -1;             // the shared buffer, index in the transformed graph
  int input_buffer = -1;       // the buffer overwritten, index in the original graph (after
                               // earlier merges: a chain keeps the first buffer)
  int output_buffer = -1;      // the merged-away output, index in the original graph
  int64_t line_buffer_bytes = 0;  // workspace added to the operator (depthwise only)
};

struct InplaceResult {
  BufferGraph graph;                 // operators unchanged in number and index
  std::vector<InplaceMerge> merges;  // in order of the steps that run in place
};

// Requires: bg == build_buffer_graph(graph); `order` is a topological order of it.
// Guarantees: compute_memory_profile(result.graph, order).peak_bytes <=
// compute_memory_profile(bg, order).peak_bytes; no buffer is overwritten
// while a later step still reads it; model inputs and outputs are never
// overwritten. The result is valid for this order only (a merge depends on
// where the input dies). Deterministic: steps in order, inputs in node order.
InplaceResult apply_inplace(const ir::Graph& graph, const BufferGraph& bg, const Order& order);

// Output rows a row-wise in-place NHWC depthwise convolution must hold aside
// (the line buffer), for an input of `in_rows` x `in_cols` and an output of
// `out_rows` x `out_cols` with the same channels, whose rows slide by `window`.
// Returns -1 when the output does not fit in the input's bytes
// (out_rows * out_cols > in_rows * in_cols). O(out_rows).
int64_t compute_line_buffer_rows(int64_t in_rows, int64_t in_cols, int64_t out_rows, int64_t out_cols,
                                 const ir::Window& window);

}  // namespace tinyfit::analysis
