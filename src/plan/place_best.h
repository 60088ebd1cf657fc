// place-best: runs every placement algorithm and keeps the smallest arena;
// ties go to the first in the fixed order greedy-by-size, greedy-by-conflicts,
// best-fit, hill-climb, sweep-search, exact (so a tie names the cheapest
// algorithm that reached it). Costs the sum of them all; the sweep search
// runs only when the heuristics stay above the live peak, the exact search
// starts from the best so far, and PlacementOptions bounds both.
#pragma once

#include "plan/placement.h"

namespace tinyfit::plan {

// Requires: unique ids, bytes >= 0, alignment >= 1, first_step <= last_step.
// Guarantees: a valid placement no larger than any single algorithm's;
// `algorithm` names the winner, proven_optimal when the exact run proved the
// minimum, `note` carries the exact run's note (why it fell back, if it did)
// and, when the sweep search did not win, why.
Placement place_best(std::span<const PlacementBuffer> buffers, const PlacementOptions& options);

}  // namespace tinyfit::plan
