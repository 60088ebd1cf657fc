// The memory accounting of a Plan (DESIGN.md "Memory accounting" and "Plan
// v2"), over positions: every kernel call in program order, a loop body
// counted once (nested bodies too). A buffer is live from its first to its
// last use, with two rules that make one iteration's accounting hold for all
// of them:
//  - a buffer used inside a loop is live over the whole outermost loop around
//    that use, because later iterations use it again (loop context: PEX's C;
//    a carried buffer lives for the whole loop), unless
//  - it is a kPartial buffer: it holds only the current chunk of the
//    innermost loop around all its uses (its home loop), is written before it
//    is read in every iteration of that loop, and so is live only between its
//    uses there (a use inside a loop nested in the home loop counts as that
//    whole nested loop); or a kWorkspace buffer: scratch of one call, live
//    at its call only.
// So the memory of a loop is the largest sum of live bytes at any position of
// its body, its carried buffers included. Model inputs are live from position
// 0, model outputs until the last.
// A declared overlap (vMCU) anchors its output buffer to its input buffer,
// and the bytes they share count once (declared_overlaps.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "plan/placement.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::plan {

struct PlanPosition {
  int step = 0;                // index into Plan::steps
  std::vector<int> body_path;  // indices into the bodies of the loops around the call, outermost
                               // first; empty for a plain call
};

// The positions a loop's body covers, for reports (the SVG marks them).
struct LoopSpan {
  const Loop* loop = nullptr;
  int depth = 0;           // 0: a step of the plan
  int first_position = 0;  // inclusive
  int last_position = 0;   // inclusive
};

struct PlanMemory {
  std::vector<PlanPosition> positions;
  std::vector<LoopSpan> loops;      // in program order (an outer loop before the loops it holds)
  // One record per plan buffer (id = BufferId), lifetimes in positions, ready
  // for the placement algorithms. A buffer no call uses gets position 0 only.
  std::vector<PlacementBuffer> buffers;
  std::vector<int64_t> live_bytes;  // per position: bytes of buffers live there
  int64_t peak_bytes = 0;           // max of live_bytes (DESIGN.md peak_bytes)
  int peak_position = 0;            // first position reaching it
};

// The call at a position.
const KernelCall& call_at(const Plan& plan, const PlanPosition& position);

// Requires: every view names a buffer of the plan.
// Guarantees: peak_bytes == compute_live_peak_bytes(buffers). O(views + positions).
PlanMemory compute_plan_memory(const Plan& plan);

// Buffers live at a position, largest first (ties by id), for bottleneck reports.
std::vector<BufferId> live_buffers_at(const PlanMemory& memory, int position);

// Places the plan's buffers with the named placement algorithm (placement.h,
// "best" included), writes each PlanBuffer::offset and Plan::arena_bytes, and
// returns the placement (algorithm, proven_optimal, note). Requires: a known
// algorithm name (the caller validated it). Guarantees: verify_placement holds.
Result<Placement> place_plan(Plan& plan, std::string_view algorithm, const PlacementOptions& options);

}  // namespace tinyfit::plan
