// place-hill-climb: local search over the order in which first fit places the
// buffers (TVM-USMP's hill_climb idea). Starts from the best greedy placement
// (its buffers sorted by offset, so first fit reproduces it or better), then
// moves one buffer to an earlier position in the order, chosen by a seeded
// generator (half the time among the buffers that end at the arena's top),
// keeping the move when the arena does not grow (sideways moves cross
// plateaus). Stops at the live-bytes lower bound, after
// kHillClimbMaxMoves moves or about kHillClimbWork gap checks (fewer moves
// for big models), or when options.deadline expires.
//
// Why orders: without in-place pairs every placement is reproduced or beaten
// by first fit in the order of its offsets (drop each buffer as low as it
// goes: nothing placed before it moved up), so the optimum is some order's
// first fit; the search is not exhaustive, so not optimal. Cost per move:
// O(pairs log n) for the pairs of buffers live together. Deterministic
// unless the deadline cuts it short.
#pragma once

#include "plan/placement.h"

namespace tinyfit::plan {

inline constexpr size_t kHillClimbMaxMoves = 3000;
inline constexpr size_t kHillClimbWork = 30'000'000;

// Requires: unique ids, bytes >= 0, alignment >= 1, first_step <= last_step.
// Guarantees: a valid placement no larger than greedy-by-size,
// greedy-by-conflicts and best-fit.
Placement place_hill_climb(std::span<const PlacementBuffer> buffers, const PlacementOptions& options);

}  // namespace tinyfit::plan
