// Multiply-accumulates a Plan actually executes, for "no recomputation"
// claims (PEX: partial execution has zero MAC overhead; MOTES BlockConcat: a
// row-partitioned chain computes every row once; DESIGN.md "Cost": report MAC
// overhead separately from memory).
#pragma once

#include <cstdint>

#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::plan {

// What: the MACs of every call instance (loop bodies once per iteration),
// from the node's declared MACs (ir::OpDecl::count_macs), which are
// proportional to the output elements computed:
//  - kWhole, kChunk: node MACs x the elements the output view shows in that
//    iteration / the output tensor's elements;
//  - kAccumulate: node MACs x the accumulator view's share of the output x
//    the input view's channels / the input's channels (last axis of input 0);
//    of a global pool by rows (partition::accumulates_rows): node MACs x the
//    input view's elements / the input's;
//  - kFinalize, kCopy: 0 (requantisation and data movement, not MACs).
// Shares are summed over a call's instances before they multiply the node's
// MACs, so a loop whose views cover each output element once counts the node
// exactly once.
// Requires: plan lowered from `graph` (node ids valid; channels = last axis).
// Guarantees: for a plan whose loops cover each node's output once, the
// result equals ir::count_graph_macs(graph) when every node runs.
int64_t count_plan_macs(const ir::Graph& graph, const Plan& plan);

}  // namespace tinyfit::plan
