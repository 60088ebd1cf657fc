// A readable dump of a Plan (`tinyfit compile --dump-plan`, golden tests):
// what an engineer reads to see what the compiler decided.
#pragma once

#include <ostream>
#include <string>

#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::plan {

// What: prints, in this order,
//  - a header: buffers, steps, kernel calls per inference, arena, techniques;
//  - one line per buffer: id, role, dtype, bytes, arena offset ("-" before
//    placement), lifetime in positions (plan_memory.h) and its name;
//  - the steps: each call at its position ("p3") with node, operator type,
//    mode, views and workspace; a loop as its name, extent, tile and
//    iterations, its body indented beneath.
// A view prints as b<id>[+offset] <shape> /<strides>, plus "chunk axis A
// (+S per element)" when it follows the loop's chunk.
// Requires: every id in the plan is in range (verify_plan's structure check).
// Guarantees: deterministic text, one line per buffer and per call.
void print_plan(std::ostream& out, const ir::Graph& graph, const Plan& plan);

// One view as print_plan shows it ("b3+16 1x8x8x[4] /256,32,4,1 chunk axis 3 (+1)").
std::string format_view(const View& view);

}  // namespace tinyfit::plan
