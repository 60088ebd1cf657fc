// verify_plan's rules for declared overlaps of row loops (plan.h
// LoopOverlap; plan/lower_row_loop_overlap.h). A failure is our bug (an
// internal Diag), like every verify_plan failure.
#pragma once

#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::plan {

// Checks, for every loop that declares overlaps:
//  - it is a row loop among the plan's steps (not nested) whose body holds
//    calls only; each overlap names two different buffers of the plan, and
//    no buffer is placed by two declared overlaps (of loops or calls);
//  - neither buffer is the workspace of a call of the loop (its writes
//    would be invisible to the replay);
//  - the input is consumed: no call of the loop writes it, no call after
//    the loop uses it, it is no model output; the output (the loop's output
//    or one of its row buffers) is fresh: no call before the loop uses it
//    and it is no model input;
//  - the offset is safe, re-derived by replaying the loop's accesses byte by
//    byte, independently of the lowering's closed form: every call instance
//    of the loop, in execution order, marks the input bytes its views of the
//    input span as read at its time; then no byte an output view of the
//    loop's calls spans (shifted by the offset onto the input) may be an
//    input byte read at or after that call. Nothing about the order of rows
//    is assumed.
// O(call instances x views + bytes of the pair).
Status verify_row_loop_overlaps(const Plan& plan);

// The replay alone, for one loop and one overlap (tests): ok when safe.
Status replay_row_loop_overlap(const Plan& plan, const Loop& loop, const LoopOverlap& overlap);

}  // namespace tinyfit::plan
