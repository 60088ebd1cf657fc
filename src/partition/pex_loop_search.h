// The partial-execution loops that may run next (PEX §3.1 rules, Appendix A
// conditions), from a state where the operators in `done` have run.
//
// A loop grows from a seed (a ready chunkable operator: Partial continue over
// slices of its inputs, or Generate) by adding, one at a time, a chunkable
// operator with the loop's channels whose inputs are all done or chunks made in
// the loop (so the loop is convex: nothing outside it sits between two of its
// operators, Constraint 10 holds, and a tensor the loop makes is complete when
// it ends). The rule follows: C-type: Partial continue (inputs made before the
// loop are sliced); A-type reading a chunk of the loop: Accumulate (its output
// exists only after the loop, so nothing in the loop may read it); A-type
// reading a done tensor: Generate. Every operator set reachable so is offered
// once, if it holds at least one partial tensor (made and fully consumed
// inside: without one a loop saves nothing over whole operators). Side-by-side
// chains of the same channels may share a loop, as PEX's rules allow.
// Not offered (a limit): Accumulate over slices of a tensor made before the loop.
// Cost: the operator sets grow with the graph's width; the caps below bound it.
#pragma once

#include <cstdint>
#include <vector>

#include "partition/pex_graph.h"
#include "partition/pex_loop.h"
#include "support/deadline.h"

namespace tinyfit::partition {

struct LoopSearchLimits {
  int max_loop_ops = 32;             // operators in one loop
  int64_t max_loops = 4096;          // loops offered from one state
  int64_t max_grown_sets = 2'000;    // operator sets tried from one state
};

struct LoopSearchResult {
  std::vector<PexLoop> loops;  // each operator set once, deterministic order
  bool truncated = false;      // a limit or the deadline cut the enumeration
};

// Requires: `done` is closed under producers (every input of a done operator
// is a model input or made by a done operator).
LoopSearchResult enumerate_loops(const PexGraph& pg, const OpSet& done, const LoopSearchLimits& limits,
                                 const Deadline& deadline);

}  // namespace tinyfit::partition
