// The DESIGN.md `schedule` field: the input model's node names in execution
// order, every node exactly once.
#pragma once

#include <string>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "ir/graph.h"

namespace tinyfit::driver {

// Expands an operator order into input-model node names: each IR node's
// source_nodes (its own name, unless synthesized, with the model nodes folded
// into it, in input-model order), and the alias (reshape-like) nodes, listed
// as soon as the buffer they reinterpret exists.
std::vector<std::string> list_schedule_names(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                             const analysis::Order& order);

}  // namespace tinyfit::driver
