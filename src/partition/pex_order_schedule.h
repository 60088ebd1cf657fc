// A fast PEX schedule that keeps one operator order: every instruction is the
// next operator whole or a loop over the next run of operators of `order`
// (a DP over the order's prefixes, O(operators x max_loop_ops) loop costs).
// It never exceeds the order's own peak (whole operators alone reproduce it),
// but misses loops whose operators the order interleaves with others. The
// full search (pex_schedule.h) falls back to it when cut short, and uses its
// peak as an upper bound.
#pragma once

#include "analysis/memory_profile.h"
#include "partition/pex_graph.h"
#include "partition/pex_schedule.h"

namespace tinyfit::partition {

// Requires: `order` is a topological order of pg's operators.
// Guarantees: a complete schedule (optimal = false: optimal only along the
// order); peak_bytes <= the peak of running `order` one operator at a time.
PexSchedule schedule_pex_along_order(const PexGraph& pg, const analysis::Order& order, int max_loop_ops);

}  // namespace tinyfit::partition
