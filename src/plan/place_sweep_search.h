// place-sweep-search: a depth-first search for a placement whose arena is the
// live-bytes lower bound (compute_live_peak_bytes), so that what it finds is
// optimal. Buffers are placed in the order they come to life (first step,
// then larger first, then id), each against the placed buffers its lifetime
// overlaps: those are exactly the ones it can collide with, since any other
// buffer live with it comes to life later and is placed after it. A buffer
// tries, lowest first, the offsets where it rests on the arena's bottom or on
// a placed buffer, or hangs from the target or from a placed buffer (its top
// against their start); when none fits under the target the search goes back
// to the latest buffer that constrains it and tries that one's next offset
// (graph-based backjumping).
//
// Where the greedy orders and the hill climb over them leave a few percent
// above the peak on the NAS networks, the arena is decided by the few large
// buffers of a handful of steps; a search over those positions finds the
// peak in hundreds of nodes (measured on zoo:darts-imagenet-f32 in place:
// 4,616,192 where hill-climb gives 4,795,904).
//
// Incomplete, so a failure proves nothing: the offsets tried are not all the
// offsets of every placement (a buffer may rest on one placed after it), and
// the search stops after kSweepSearchMaxNodes placements or at the deadline.
// Declared overlaps (may_overlap_with, anchors) are left to the other
// algorithms: with any, it returns its fallback.
#pragma once

#include <cstdint>

#include "plan/placement.h"

namespace tinyfit::plan {

// Placements tried at most: ~0.1 s on the 500-buffer NAS networks.
inline constexpr int64_t kSweepSearchMaxNodes = 400'000;

// Requires: unique ids, bytes >= 0, alignment >= 1, first_step <= last_step.
// Guarantees: a valid placement; arena_bytes == the live-bytes lower bound
// and proven_optimal when the search succeeds, else greedy-by-size's with a
// note saying so.
Placement place_sweep_search(std::span<const PlacementBuffer> buffers, const PlacementOptions& options);

// The same with the placement to return when the search fails (place_best
// passes the best heuristic it has).
// Requires: verify_placement(buffers, fallback) passes.
Placement place_sweep_search_from(std::span<const PlacementBuffer> buffers, Placement fallback,
                                  const PlacementOptions& options);

}  // namespace tinyfit::plan
