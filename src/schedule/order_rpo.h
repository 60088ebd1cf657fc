// Depth-first order from the model outputs (the order MOTES uses inside its
// search, and the "ordinary" order of most interpreters).
#pragma once

#include "analysis/buffer_graph.h"
#include "schedule/order_result.h"

namespace tinyfit::schedule {

// What: a depth-first walk that starts at the producers of the model outputs
// (by buffer index, then every other operator whose outputs nobody reads, by
// operator index) and follows producer edges, lowest producer index first. Each
// operator is emitted after all its producers (the DFS post-order on producer
// edges, which is the reverse post-order of the same DFS on consumer edges), so
// one branch is finished before the next one starts: a branch's intermediate
// tensors die before the sibling's are created.
// Requires: bg is acyclic (verify_graph).
// Guarantees: a topological order of all operators; deterministic; O(operators +
// edges) time, iterative (no recursion: deep chains cannot overflow the stack).
// Not memory-aware beyond that: it can be worse than the given order.
Order order_rpo(const analysis::BufferGraph& bg);

}  // namespace tinyfit::schedule
