// Multiply-accumulates a Plan actually executes, for "no recomputation"
// claims (PEX: partial execution has zero MAC overhead; DESIGN.md "Cost":
// report MAC overhead separately from memory).
#pragma once

#include <cstdint>

#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::plan {

// What: the MACs of every call, loop bodies once per iteration, from the
// node's declared MACs (ir::OpDecl::count_macs):
//  - kWhole: the node's MACs;
//  - kChunk: node MACs x chunk / output channels, per iteration;
//  - kAccumulate: node MACs x chunk / input channels (last axis of input 0), per iteration;
//  - kFinalize, kCopy: 0 (requantisation and data movement, not MACs).
// Requires: plan lowered from `graph` (node ids valid; channels = last axis).
// Guarantees: for a plan whose loops each cover their node's channels exactly
// once, the result equals ir::count_graph_macs(graph) when every node runs.
int64_t count_plan_macs(const ir::Graph& graph, const Plan& plan);

}  // namespace tinyfit::plan
