// The PEX scheduler (§3.2-3.3, Algorithm 1 "OptimisePMU", Appendix A): the
// minimum-peak sequence of instructions, each a whole operator (Full
// continue) or a partial-execution loop (pex_loop.h, pex_loop_search.h).
//
// State model: as PEX's <Mem, C>, a state is what remains to compute, kept as
// the set of operators already done (the tensors in memory follow from it);
// a loop is one transition whose context C is counted in its cost
// (pex_loop.h), so states between loops carry no context. The search is PEX's
// memoised DP in the (max, min) semiring, run forward best-first: a state's
// peak is the largest instruction peak on the way to it, each state is
// expanded once (memoised), and the first complete state reached is optimal.
// A second pass keeps that peak and, among the schedules reaching it, takes
// the fewest Accumulate operators, then the fewest loops (PEX §4.3: avoid
// partial execution where it does not lower the peak).
//
// Cost: exponential in the graph's width (states are down-closed operator
// sets), linear-ish on chains of blocks such as MobileNets. First a fast
// schedule along one operator order (pex_order_schedule.h) gives an upper
// bound that prunes every costlier instruction; the search polls the deadline
// and caps its states, and when cut short returns that schedule
// (optimal = false).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "analysis/memory_profile.h"
#include "partition/pex_graph.h"
#include "partition/pex_loop.h"
#include "partition/pex_loop_search.h"
#include "support/deadline.h"

namespace tinyfit::partition {

struct PexScheduleOptions {
  Deadline deadline;
  std::function<void(double)> progress;  // non-decreasing fraction in [0, 1]
  bool allow_loops = true;               // false: the best operator order only
  LoopSearchLimits loop_limits;
  int64_t max_states = 50'000;
  // The order of the fast bound schedule (the best plain order, for a
  // fallback never worse than it); empty: operator index order.
  analysis::Order bound_order;
};

struct PexInstruction {
  bool is_loop = false;
  int op = -1;          // whole operator (Full continue)
  PexLoop loop;         // is_loop
  int64_t peak_bytes = 0;
};

struct PexSchedule {
  std::vector<PexInstruction> instructions;
  int64_t peak_bytes = 0;      // max of the instructions' peaks
  bool optimal = true;         // minimum over every schedule of these rules
  std::string note;            // one line: what the search did, why it stopped
  int64_t states_expanded = 0;
};

// Requires: pg's operators are in topological order.
// Guarantees: every operator runs exactly once, after its producers; each loop
// valid for the operators done before it; peak_bytes equals the plan_memory
// peak of its lowering with tile 1 (plan/lower_pex.h).
PexSchedule schedule_pex(const PexGraph& pg, const PexScheduleOptions& options);

}  // namespace tinyfit::partition
