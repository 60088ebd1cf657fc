// The exact core: minimum-peak order of one segment by dynamic programming over
// sets of scheduled operators (Serenity, Ahn et al. MLSys 2020), with
// memoisation, upper-bound pruning and a dominance rule.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "analysis/buffer_graph.h"
#include "schedule/order_result.h"

namespace tinyfit::schedule {

// The state key is a 128-bit set of operators; larger segments are not searched.
inline constexpr int kMaxExactSegmentOps = 128;

enum class SearchStop {
  kFinished,  // the search space was exhausted: the result is optimal
  kDeadline,  // OrderOptions::deadline expired
  kStateCap,  // OrderOptions::max_states_per_segment memoised states reached
  kBeam,      // a beam search: complete, but states were dropped by design
};

struct SegmentSearchResult {
  Order order;           // the incumbent, or a strictly better order
  int64_t peak_bytes = 0;
  SearchStop stop = SearchStop::kFinished;
  int64_t states_explored = 0;  // states expanded
};

// What: the minimum peak over all topological orders of `bg`. The live memory
// between two steps depends only on the set S of operators already run, so
// best_peak(S + v) = min over v of max(best_peak(S), memory while v runs after S);
// sets are expanded layer by layer (by size), so each is final when expanded,
// and kept in a hash map keyed by the bitset. Pruned: states whose peak so far,
// or the largest per-operator lower bound of the operators left, reaches the
// incumbent's peak; and when a ready operator frees memory without raising the
// peak, it is the only successor tried (moving such an operator earlier never
// raises any later step, so some optimal order does it).
// Requires: bg acyclic with at most kMaxExactSegmentOps operators; `incumbent`
// a topological order of bg.
// Guarantees: a topological order with peak <= the incumbent's; optimal when
// stop == kFinished. Cost: exponential in the width of the graph (the number of
// downward-closed operator sets), capped by max_states_per_segment states
// (~70 bytes each) and the deadline (polled every 64 expansions). `progress`
// receives the fraction of layers done.
SegmentSearchResult search_min_peak_order(const analysis::BufferGraph& bg, const Order& incumbent,
                                          const OrderOptions& options,
                                          const std::function<void(double)>& progress);

// What: the same dynamic programme, keeping only the `beam_width` best states of
// each layer (lowest peak so far, then least live memory, then discovery
// order): the anytime fallback when the exact search was stopped.
// Requires: as search_min_peak_order; beam_width >= 1.
// Guarantees: a topological order with peak <= the incumbent's; stop == kBeam
// (no optimality claim) unless the incumbent meets the lower bound (kFinished). Polynomial: O(n^2 x beam_width) transitions, so
// it ignores the deadline (width 64 on 128 operators is ~1M transitions, a few
// milliseconds).
SegmentSearchResult search_beam_order(const analysis::BufferGraph& bg, const Order& incumbent, int beam_width);

}  // namespace tinyfit::schedule
