// The engine under the greedy placements: buffers are placed one at a time,
// in an order the caller chose, each at a gap among the already placed
// buffers whose lifetimes overlap its own. Greedy, not optimal (the problem is
// NP-hard); O(n² log n) for n buffers.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "plan/placement.h"

namespace tinyfit::plan {

enum class GapPolicy {
  kFirstFit,  // the lowest aligned offset that fits (TFLite Micro's GreedyMemoryPlanner)
  kBestFit,   // the smallest bounded gap that fits, else above everything
};

// Requires: `order` is a permutation of [0, buffers.size()).
// Guarantees: a valid placement (verify_placement passes). A buffer whose
// declared in-place partner is already placed takes the partner's offset when
// no other live buffer is in the way there: that is the point of in-place.
Placement place_sequentially(std::span<const PlacementBuffer> buffers, std::span<const int> order,
                             GapPolicy policy, std::string algorithm);

}  // namespace tinyfit::plan
