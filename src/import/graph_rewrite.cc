#include "import/graph_rewrite.h"

#include <algorithm>

namespace tinyfit::import {

bool is_helper_name(const std::string& name) { return name.find('#') != std::string::npos; }

void absorb_node(ir::Node& host, const ir::Node& folded) {
  if (!is_helper_name(folded.name)) host.fused_names.push_back(folded.name);
  host.fused_names.insert(host.fused_names.end(), folded.fused_names.begin(), folded.fused_names.end());
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
