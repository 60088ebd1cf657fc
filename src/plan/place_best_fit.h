// place-best-fit: lifetimes in order of first_step (ties: larger first, then
// id), each into the smallest gap between the placed buffers live with it that
// still fits, else above them all. Mimics a malloc with best fit running the
// model, but knowing the future sizes it packs tighter than first fit on
// staircase lifetimes. Greedy, not optimal (NP-hard); O(n log n + pairs log n) for the pairs of buffers live together.
#pragma once

#include "plan/placement.h"

namespace tinyfit::plan {

// Requires: unique ids, bytes >= 0, alignment >= 1, first_step <= last_step.
// Guarantees: a valid placement (verify_placement); deterministic; options unused.
Placement place_best_fit(std::span<const PlacementBuffer> buffers, const PlacementOptions& options);

}  // namespace tinyfit::plan
