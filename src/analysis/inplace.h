// In-place execution (TinyEngine's technique, an option on top of ordinary
// execution): an operator writes its output over an input buffer that dies at
// that operator, so the two tensors occupy one buffer and the memory profile
// counts their bytes once.
//
// Which inputs an operator may overwrite in any order is data: the
// BufferGraph's inplace_options (analysis/inplace_rule.h reads them from
// ir::OpDecl::inplace). An order allows option (op, input) when, in it:
//  - the input dies at op: op is its last consumer (and it is no model
//    output, which includes, in a segment's graph, a buffer read after the
//    segment), and
//  - the input does not already hold a larger tensor: a buffer cannot shrink,
//    so an output smaller than its input (a stride-2 depthwise) keeps the
//    input's size for its whole life, and such an enlarged buffer is not
//    overwritten again (the rest of its chain would keep that size too).
//
// Model: the output's buffer is merged into the input's buffer (bytes = the
// larger of the two, consumers joined, the line buffer added to the
// operator's workspace), so every later analysis and the placement see one
// buffer and need no declared overlap. An overwrite whose output is as large
// as its input never raises any step (it lowers its own step by the output's
// bytes less the line buffer); one that shrinks lowers its step but holds the
// input's size for the output's life, a trade the order searches weigh
// (schedule/order_exact.h) and apply_inplace judges greedily.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"

namespace tinyfit::analysis {

struct InplaceMerge {
  int op = -1;                 // operator index (same in both graphs)
  int buffer = -1;             // the shared buffer, index in the transformed graph
  int input_buffer = -1;       // the buffer overwritten (the option's), index in the original graph
  int output_buffer = -1;      // the merged-away output, index in the original graph
  int64_t line_buffer_bytes = 0;  // workspace added to the operator (depthwise only)
};

struct InplaceResult {
  BufferGraph graph;                 // operators unchanged in number and index; no inplace_options left
  std::vector<InplaceMerge> merges;  // in order of the steps that run in place
};

// Per operator of a BufferGraph: the input buffer it overwrites (the
// input_buffer of one of its InplaceOptions), or -1.
using InplaceChoices = std::vector<int>;

// Applies exactly the overwrites in `choices` (the order searches pick them
// together with the order: schedule/order_result.h).
// Requires: `order` a topological order of bg; choices.size() == operators;
// every choice allowed by `order` in the sense of the header, given the
// choices of the steps before it (an internal error otherwise).
// Guarantees: no buffer is overwritten while a later step still reads it;
// model inputs and outputs are never overwritten. Valid for this order only.
// O(steps + buffers + merges x tensors).
InplaceResult apply_inplace_choices(const BufferGraph& bg, const Order& order, const InplaceChoices& choices);

// Picks overwrites for a given order greedily: steps in order, options in
// input order, an overwrite kept when it lowers the peak, or keeps it and
// lowers the sum of the steps' memory.
// Requires: `order` a topological order of bg.
// Guarantees: those of apply_inplace_choices, and
// compute_memory_profile(result.graph, order).peak_bytes <=
// compute_memory_profile(bg, order).peak_bytes. Not optimal for the order
// when a shrinking overwrite is declined or kept too early. Deterministic.
// O(options x (steps + buffers)).
InplaceResult apply_inplace(const BufferGraph& bg, const Order& order);

// The choices a result applied (to reapply them, or to report them).
InplaceChoices list_inplace_choices(const InplaceResult& result);

// What: the choices the peak needs: each chosen overwrite, last step first,
// is dropped when the peak with the others stays at most the peak with all.
// Why: an overwrite joins two buffers into one over both lifetimes; away from
// the peak it lowers nothing that matters and leaves one long block that the
// placement must fit around.
// Requires: as apply_inplace_choices. Guarantees: a subset of `choices`
// (dropping an overwrite never forbids another), with the same peak. O(merges
// x (steps + buffers)).
InplaceChoices keep_choices_the_peak_needs(const BufferGraph& bg, const Order& order, const InplaceChoices& choices);

}  // namespace tinyfit::analysis
