// place-greedy-by-conflicts: TVM-USMP's greedy_by_conflicts. The buffer that
// conflicts with the most bytes first (the sum of the sizes of the buffers
// whose lifetimes overlap its own; empty buffers conflict with nothing), then
// by number of conflicts, size, id;
// each at the lowest aligned offset that fits. The idea: the most constrained
// buffer is placed while the arena is still empty. Greedy, not optimal
// (NP-hard); O(n log n + pairs log n).
#pragma once

#include "plan/placement.h"

namespace tinyfit::plan {

// Requires: unique ids, bytes >= 0, alignment >= 1, first_step <= last_step.
// Guarantees: a valid placement (verify_placement); deterministic; options unused.
Placement place_greedy_by_conflicts(std::span<const PlacementBuffer> buffers,
                                    const PlacementOptions& options);

}  // namespace tinyfit::plan
