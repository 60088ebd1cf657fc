// A row loop's own row buffers inside the input rows it has consumed (issue
// 12 item 5; docs/overlap.md "Row loops"). With a loop's output declared at
// its limit L > 0 over a consumed input (apply_row_loop_overlaps with
// at_limit), the input's first L bytes lie below every byte the output ever
// takes, and they die as the loop reads on. A carried or partial buffer of
// the loop whose every write lands below every later read of those bytes may
// live there: it is declared as one more LoopOverlap of the loop (input, the
// row buffer, its offset), placed with the input like the output, and
// verify_plan replays its writes against the input's reads exactly as an
// output's. The row buffers are stacked downward from the output's start,
// largest first; the lowest may hang below the input's start (its bytes
// there cost what they cost without the overlap).
//
// What it saves, and its limit: every buffer of the loop is live from the
// loop's first iterations, when almost no input row is consumed yet, so the
// row buffers can take at most the L bytes below the output; the peak of
// the loop stays about input + row buffers - L. For MobileNetV2-224's first
// loop L is 2,016 bytes, set by its first iteration (docs/overlap.md).
#pragma once

#include <cstdint>

#include "plan/lower_row_loop_overlap.h"
#include "plan/plan.h"

namespace tinyfit::plan {

// What: for each row loop among `plan`'s steps that declares an overlap
// (input I, output O, offset d > 0), the loop's carried and partial buffers
// (used by no call outside the loop, never a workspace, not placed by a
// declared overlap), largest first (ties by id), each declared over I at the
// highest offset, rounded down to `alignment`, that keeps it below the ones
// before it (the first: below O) and within its limit
// (compute_row_loop_overlap_limit of (I, buffer)); a buffer that would share
// no byte with I is skipped.
// Requires: plan not placed (offsets -1).
// Guarantees: verify_plan holds if it held; live bytes at no position
// increase; kernel calls, MACs and outputs unchanged.
RowLoopOverlapResult apply_row_buffer_overlaps(Plan plan, int64_t alignment = 4);

}  // namespace tinyfit::plan
