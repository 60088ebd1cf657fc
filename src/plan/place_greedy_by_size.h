// place-greedy-by-size: TFLite Micro's GreedyMemoryPlanner. Largest buffer
// first (ties: earlier first_step, then id), each at the lowest aligned offset
// that fits among the placed buffers whose lifetimes overlap its own.
// Greedy, not optimal (NP-hard); O(n log n + pairs log n) for the pairs of buffers live together.
#pragma once

#include "plan/placement.h"

namespace tinyfit::plan {

// Requires: unique ids, bytes >= 0, alignment >= 1, first_step <= last_step.
// Guarantees: a valid placement (verify_placement); deterministic; options unused.
Placement place_greedy_by_size(std::span<const PlacementBuffer> buffers, const PlacementOptions& options);

}  // namespace tinyfit::plan
