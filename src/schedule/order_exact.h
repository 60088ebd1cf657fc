// Exact minimum-peak operator order (MOTES §3, MemoriaNova §2.2; Serenity's
// memoised dynamic programming), made to scale by splitting at sequential cuts.
#pragma once

#include "analysis/buffer_graph.h"
#include "schedule/order_result.h"

namespace tinyfit::schedule {

// What: splits the graph at its sequential cuts (sequential_cuts.h) and solves
// each segment with search_min_peak_order (exact_segment_search.h), seeded with
// the best of the hierarchical, given and rpo orders restricted to the segment.
// A segment above max_exact_segment_ops operators, or one reached after the
// deadline, keeps that seed; one that hits the deadline or the state cap keeps
// the best order found. `note` says which segments and why.
// Requires: the given order 0..n-1 is topological (verify_graph).
// Guarantees: a topological order whose peak is <= the peaks of the given, rpo
// and hierarchical orders; optimal == true only when the minimum peak over all
// topological orders is proven (every segment searched to the end, or the peak
// equals the per-operator lower bound). Cost: linear in the number of segments,
// exponential in the width of each segment (capped, see OrderOptions); a chain
// of 10,000 operators is 10,000 one-operator segments.
OrderResult order_exact(const analysis::BufferGraph& bg, const OrderOptions& options);

}  // namespace tinyfit::schedule
