// The memory accounting of a Plan (DESIGN.md "Memory accounting"), over
// positions: every kernel call in program order, a loop body counted once.
// A buffer is live from its first to its last use, with two rules that make
// one iteration's accounting hold for all of them:
//  - a buffer used inside a loop is live over the whole loop, because later
//    iterations use it again (loop context: PEX's C), unless
//  - it is a kPartial buffer: it holds only the current chunk, is written
//    before it is read in every iteration, and so is live only between its
//    uses inside the body.
// Model inputs are live from position 0, model outputs until the last.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "plan/placement.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::plan {

struct PlanPosition {
  int step = 0;        // index into Plan::steps
  int body_index = -1; // index into the loop body, -1 for a plain call
};

struct PlanMemory {
  std::vector<PlanPosition> positions;
  // One record per plan buffer (id = BufferId), lifetimes in positions, ready
  // for the placement algorithms. A buffer no call uses gets position 0 only.
  std::vector<PlacementBuffer> buffers;
  std::vector<int64_t> live_bytes;  // per position: bytes of buffers live there
  int64_t peak_bytes = 0;           // max of live_bytes (DESIGN.md peak_bytes)
  int peak_position = 0;            // first position reaching it
};

// The call at a position.
const KernelCall& call_at(const Plan& plan, PlanPosition position);

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
