#include "import/graph_rewrite.h"

#include <algorithm>
#include <set>

namespace tinyfit::import {

void absorb_before(ir::Node& host, const ir::Node& folded) {
  host.source_nodes.insert(host.source_nodes.begin(), folded.source_nodes.begin(), folded.source_nodes.end());
}

void absorb_after(ir::Node& host, const ir::Node& folded) {
  host.source_nodes.insert(host.source_nodes.end(), folded.source_nodes.begin(), folded.source_nodes.end());
}

std::string first_free_name(const std::set<std::string>& taken, const std::string& base) {
  std::string name = base;
  for (int k = 2; taken.count(name); ++k) name = base + "_" + std::to_string(k);
  return name;
}

std::string unique_node_name(const ir::Graph& graph, const std::string& base) {
  // Names of folded model nodes count too: a synthesized node must not look
  // like a node of the input model.
  std::set<std::string> taken;
  for (const ir::Node& node : graph.nodes) {
    taken.insert(node.name);
    taken.insert(node.source_nodes.begin(), node.source_nodes.end());
  }
  return first_free_name(taken, base);
}

std::string unique_tensor_name(const ir::Graph& graph, const std::string& base) {
  std::set<std::string> taken;
  for (const ir::Tensor& tensor : graph.tensors) taken.insert(tensor.name);
  return first_free_name(taken, base);
}

void replace_tensor_uses(ir::Graph& graph, ir::TensorId from, ir::TensorId to) {
  for (ir::Node& node : graph.nodes) {
    for (ir::TensorId& in : node.inputs) {
      if (in == from) in = to;
    }
  }
  for (ir::TensorId& out : graph.outputs) {
    if (out == from) out = to;
  }
}

bool is_graph_output(const ir::Graph& graph, ir::TensorId id) {
  return std::find(graph.outputs.begin(), graph.outputs.end(), id) != graph.outputs.end();
}

bool is_graph_input(const ir::Graph& graph, ir::TensorId id) {
  return std::find(graph.inputs.begin(), graph.inputs.end(), id) != graph.inputs.end();
}

void erase_nodes(ir::Graph& graph, const std::vector<bool>& dead) {
  std::vector<ir::Node> kept;
  kept.reserve(graph.nodes.size());
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (!dead[n]) kept.push_back(std::move(graph.nodes[n]));
  }
  graph.nodes = std::move(kept);
}

}  // namespace tinyfit::import
