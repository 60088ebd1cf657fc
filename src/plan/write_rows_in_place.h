// Plan pass write-rows-in-place: inside a loop, an element-wise call
// (ir::InplaceRule::kElementwise: a ReLU, an Add) or a Slice
// (kForwardCopy) whose input is a partial buffer of the iteration that no
// later call of the iteration reads writes its output over that input
// instead of into a buffer of its own, as in-place execution
// (analysis/inplace.h) does for whole tensors. The fine-grained graph's
// in-place merges stop at a loop's boundary (a loop's operators are never
// merged, plan/lower_row_loop.h), so without this pass a ReLU in a row loop
// holds its input's rows and its own at once, and NASNet's factorized reduce
// holds the ReLU's rows and their one-pixel shift (NASNet-A ImageNet's first
// loop: 14,336 and 14,208 B, both live at the plan's peak).
//
// When a call qualifies: a kWhole call, neither fused nor with a declared
// overlap, of a node with one output; its output buffer B and its input
// buffer A are kPartial, of one element size, used only by calls directly in
// one loop body; B is written by this call alone; A is read by no later call
// of the body and by no other input of this call; every view of B has the
// strides and, on every swept axis, the loop and base of the call's output
// view (so each shows the same elements as a view of A at A's start). Then:
//   - kElementwise: the input view and the output view are the same but for
//     their buffer; each element is read before it is written (the rule's
//     kernel contract), so the call may run with both views equal;
//   - kForwardCopy (a loop at the plan's top level): in every iteration,
//     along every axis the output advances no faster than the input is read,
//     and the first element lands at least one copied run (a pixel's
//     channels, or one element) below where it is read from, so the
//     front-to-back copy reads every element before anything overwrites it
//     (runtime/include/tinyfit/strided_copy.h).
#pragma once

#include <string>

#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::plan {

struct RowsInPlaceResult {
  Plan plan;
  int calls_in_place = 0;  // element-wise calls now writing over their input
  std::string note;        // one line for the candidate's note, empty when none
};

// Requires: verify_plan(graph, plan) holds; not placed.
// Guarantees: verify_plan holds; every call computes what it did; B's views
// become views of A (A grows to B's bytes when B is larger) and B is removed
// (the other buffers keep their order); compute_plan_memory's peak is not
// above the input plan's (a merge that would raise it, A larger than B and
// living on in its place, is not made). O(candidates x (calls + the memory
// profile)), a round per call put in place.
RowsInPlaceResult write_rows_in_place(const ir::Graph& graph, Plan plan);

}  // namespace tinyfit::plan
