// Small graph-editing steps shared by the normalisation passes: rewiring uses
// of a tensor, dropping nodes, keeping Node::source_nodes complete and in
// input-model order when a node is folded into another, and fresh names.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace tinyfit::import {

// `host` now also runs `folded`, which ran before it in the input model (a
// Pad or Dequantize feeding it): folded's source nodes go in front of host's.
void absorb_before(ir::Node& host, const ir::Node& folded);
// `host` now also runs `folded`, which ran after it (a Relu, BatchNormalization
// or Quantize reading its output): folded's source nodes go after host's.
void absorb_after(ir::Node& host, const ir::Node& folded);

// `base`, or `base` with the first free "_2", "_3", ... when a node (or a
// tensor) of the graph already has that name; node names also avoid every
// input-model name listed in some node's source_nodes.
std::string unique_node_name(const ir::Graph& graph, const std::string& base);
// `base`, or `base` with the first "_2", "_3", ... not in `taken`.
std::string first_free_name(const std::set<std::string>& taken, const std::string& base);
std::string unique_tensor_name(const ir::Graph& graph, const std::string& base);

// Every node input and graph output that reads `from` reads `to` instead.
void replace_tensor_uses(ir::Graph& graph, ir::TensorId from, ir::TensorId to);

bool is_graph_output(const ir::Graph& graph, ir::TensorId id);
bool is_graph_input(const ir::Graph& graph, ir::TensorId id);

// Removes the nodes marked dead, keeping the order of the others.
void erase_nodes(ir::Graph& graph, const std::vector<bool>& dead);

}  // namespace tinyfit::import
