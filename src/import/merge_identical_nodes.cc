#include "import/merge_identical_nodes.h"

#include <map>

#include "import/graph_rewrite.h"

namespace tinyfit::import {
namespace {

bool same_outputs(const ir::Graph& graph, const ir::Node& a, const ir::Node& b) {
  if (a.outputs.size() != b.outputs.size()) return false;
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    const ir::Tensor& x = graph.tensor(a.outputs[i]);
    const ir::Tensor& y = graph.tensor(b.outputs[i]);
    if (x.dtype != y.dtype || x.shape != y.shape || x.quant != y.quant) return false;
  }
  return true;
}

bool identical(const ir::Graph& graph, const ir::Node& a, const ir::Node& b) {
  return a.op == b.op && a.inputs == b.inputs && a.attrs == b.attrs && a.activation == b.activation &&
         same_outputs(graph, a, b);
}

bool writes_graph_output(const ir::Graph& graph, const ir::Node& node) {
  for (ir::TensorId t : node.outputs) {
    if (is_graph_output(graph, t)) return true;
  }
  return false;
}

}  // namespace

void merge_identical_nodes(ir::Graph& graph) {
  // Kept nodes by their inputs; a merge rewires later readers, so a node
  // whose inputs were merged meets its twin under the rewritten inputs.
  std::map<std::vector<ir::TensorId>, std::vector<size_t>> kept_by_inputs;
  std::vector<bool> dead(graph.nodes.size(), false);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    ir::Node& node = graph.nodes[n];
    std::vector<size_t>& twins = kept_by_inputs[node.inputs];
    size_t twin = n;
    if (!writes_graph_output(graph, node)) {
      // The first identical kept node hosts the merge: two kept identical
      // nodes exist only when the later one writes a graph output, and that
      // one keeps its own tensor for the output's sake, not to host others.
      for (size_t k : twins) {
        if (identical(graph, graph.nodes[k], node)) {
          twin = k;
          break;
        }
      }
    }
    if (twin == n) {
      twins.push_back(n);
      continue;
    }
    ir::Node& host = graph.nodes[twin];
    for (size_t i = 0; i < node.outputs.size(); ++i) replace_tensor_uses(graph, node.outputs[i], host.outputs[i]);
    absorb_after(host, node);
    dead[n] = true;
  }
  erase_nodes(graph, dead);
  graph.remove_unused_tensors();
}

}  // namespace tinyfit::import
