// The declared overlaps of a plan (plan.h DeclaredOverlap) in its memory
// accounting and placement: the output buffer of such a call is anchored to
// its input buffer at the distance between the two views
// (PlacementBuffer::anchor), and the bytes the pair shares count once while
// both are live, so a position's live bytes are what SRAM must hold.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/placement.h"
#include "plan/plan.h"

namespace tinyfit::plan {

// The distance, in bytes, from the start of `call`'s input buffer to the
// start of its output buffer that its declared overlap fixes:
// input view start + offset_bytes - output view start.
// Requires: call.overlap names an input view.
int64_t compute_anchor_offset_bytes(const Plan& plan, const KernelCall& call);

// Requires: `records` are compute_plan_memory's (record b is buffer b) and
// `live_bytes` their per-position sums; no buffer is the output of two calls
// that declare overlaps (verify_plan checks it first).
// Guarantees: every such output buffer anchored to its input buffer, and
// every output of a row loop's declared overlap (Loop::overlaps, loops among
// the plan's steps) to its input at offset_bytes; the bytes each anchored
// pair shares subtracted from live_bytes where both live.
void apply_declared_overlaps(const Plan& plan, std::vector<PlacementBuffer>& records,
                             std::vector<int64_t>& live_bytes);

}  // namespace tinyfit::plan
