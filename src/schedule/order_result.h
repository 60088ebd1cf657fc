// What every ordering algorithm of this layer returns, and the knobs the
// searching ones accept. Plain records: no CLI, no IR (STYLE.md rule 5).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "analysis/memory_profile.h"
#include "support/deadline.h"

namespace tinyfit::schedule {

using analysis::Order;

// Default cap on the memoised states of one segment of the exact search. A state
// costs about 70 bytes in the hash map, so the cap bounds the search at ~70 MB.
inline constexpr int64_t kDefaultMaxStatesPerSegment = 1'000'000;

struct OrderOptions {
  // --time-limit. Every search loop polls it; polynomial heuristics ignore it.
  Deadline deadline;
  // Per segment (segments are solved one after another and their states freed).
  int64_t max_states_per_segment = kDefaultMaxStatesPerSegment;
  // Segments with more operators keep the best heuristic order; at most
  // kMaxExactSegmentOps (exact_segment_search.h), the width of the state key.
  int max_exact_segment_ops = 128;
  // Called with a non-decreasing fraction in [0, 1]; the library never prints.
  std::function<void(double fraction)> progress;
};

struct OrderResult {
  Order order;
  int64_t peak_bytes = 0;        // analysis::compute_memory_profile(bg, order).peak_bytes
  bool optimal = false;          // proven minimum peak over all topological orders
  std::string note;              // why not optimal, or how it was proven; one line
  int64_t states_explored = 0;   // exact search: states expanded, over all segments
};

}  // namespace tinyfit::schedule
