// The fine-grained graph G' of MOTES Algorithm 1 as the ordering layer sees
// it: each partitioned sub-graph becomes one operator (its loop), which reads
// the sub-graph's inputs and writes its outputs whole, and whose workspace is
// everything the loop keeps inside (carried rows, partial buffers, kernel
// workspaces: RowGeometry::internal_bytes). Buffers made and read only inside
// a loop disappear. Memory profiles and orders of this graph are those of the
// lowered plan: a loop's memory is its inputs, outputs and internals at every
// position of its body (plan/plan_memory.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/inplace.h"
#include "analysis/memory_profile.h"

namespace tinyfit::partition {

struct LoopSummary {
  std::vector<int> operators;  // ascending BufferGraph operator indices, convex
  int64_t internal_bytes = 0;
  std::string name;            // for reports ("rows tile 2 over a..b")
};

struct ContractedGraph {
  // A loop operator has node -1 and no in-place options; every other
  // operator keeps its own (the order searches may merge it in place).
  analysis::BufferGraph graph;
  std::vector<int> loop_of;      // per contracted operator: loop index, or -1
  std::vector<int> operator_of;  // per original operator: its contracted operator
  std::vector<int> buffer_of;    // per original buffer: contracted buffer, -1 inside a loop
};

// What: the contracted graph, its operators in the given order of `bg` with
// each loop where its last operator was (operators in between that read what
// the loop makes move after it; contract_order).
// Requires: loops disjoint, each convex in bg.
// Guarantees: given_order(result.graph) is topological. O(operators + buffers).
ContractedGraph contract_loops(const analysis::BufferGraph& bg, const std::vector<LoopSummary>& loops);

// What: an order of the contracted graph as an order of bg: each loop's
// operators, ascending (as bg's given order runs them), where the loop runs;
// `choices` (in-place choices of cg.graph, or empty) as choices of bg.
// Requires: cg from contract_loops(bg, loops); `order` topological for cg.graph.
// Guarantees: a topological order of bg in which each loop's operators are
// consecutive; the choices name the same buffers. O(operators + buffers).
analysis::Order expand_order(const ContractedGraph& cg, const std::vector<LoopSummary>& loops,
                             const analysis::Order& order);
analysis::InplaceChoices expand_inplace_choices(const ContractedGraph& cg, const analysis::InplaceChoices& choices);

// What: `order` (an order of bg) as an order of the contracted graph: each
// loop runs where its last operator ran, and the operators between its first
// and its last that depend on it run right after it, in their order.
// Requires: order topological for bg; cg from contract_loops(bg, ...).
// Guarantees: a topological order of cg.graph. O(operators + buffers).
analysis::Order contract_order(const analysis::BufferGraph& bg, const ContractedGraph& cg,
                               const analysis::Order& order);

}  // namespace tinyfit::partition
