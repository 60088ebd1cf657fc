// Small graph-editing steps shared by the normalisation passes: rewiring uses
// of a tensor, dropping nodes, and keeping Node::fused_names complete when a
// node is folded into another.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace tinyfit::import {

// Helper nodes the importers add are named "<model node>#<role>"; they are
// not nodes of the input model, so folding one lists nothing.
bool is_helper_name(const std::string& name);

// `host` now also runs `folded`: list folded's model name and its own fused
// names on host.
void absorb_node(ir::Node& host, const ir::Node& folded);

// Every node input and graph output that reads `from` reads `to` instead.
void replace_tensor_uses(ir::Graph& graph, ir::TensorId from, ir::TensorId to);

bool is_graph_output(const ir::Graph& graph, ir::TensorId id);
bool is_graph_input(const ir::Graph& graph, ir::TensorId id);

// Removes the nodes marked dead, keeping the order of the others.
void erase_nodes(ir::Graph& graph, const std::vector<bool>& dead);

}  // namespace tinyfit::import
