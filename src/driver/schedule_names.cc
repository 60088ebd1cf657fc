#include "driver/schedule_names.h"

#include "ir/op_decl.h"

namespace tinyfit::driver {

std::vector<std::string> list_schedule_names(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                             const analysis::Order& order) {
  std::vector<std::string> names;
  // source_nodes already hold the node's own name (unless synthesized) in
  // its input-model place among the nodes folded into it.
  auto append_node = [&](const ir::Node& node) {
    names.insert(names.end(), node.source_nodes.begin(), node.source_nodes.end());
  };
  // Alias nodes wait until their source tensor exists; a produced alias may
  // release further aliases (chains of reshapes), hence the worklist.
  std::vector<bool> available(graph.tensors.size(), false);
  for (ir::TensorId id : graph.inputs) available[static_cast<size_t>(id)] = true;
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    if (graph.tensors[t].is_constant) available[t] = true;
  }
  std::vector<bool> emitted(graph.nodes.size(), false);
  auto release_aliases = [&] {
    for (bool progress = true; progress;) {
      progress = false;
      for (size_t n = 0; n < graph.nodes.size(); ++n) {
        const ir::Node& node = graph.nodes[n];
        if (emitted[n] || !ir::op_decl(node.op).is_alias) continue;
        if (!available[static_cast<size_t>(node.inputs.at(0))]) continue;
        append_node(node);
        emitted[n] = true;
        for (ir::TensorId out : node.outputs) available[static_cast<size_t>(out)] = true;
        progress = true;
      }
    }
  };
  release_aliases();
  for (int op : order) {
    const ir::NodeId n = bg.operators.at(static_cast<size_t>(op)).node;
    append_node(graph.nodes.at(static_cast<size_t>(n)));
    emitted[static_cast<size_t>(n)] = true;
    for (ir::TensorId out : graph.nodes[static_cast<size_t>(n)].outputs) {
      if (out != ir::kNoTensor) available[static_cast<size_t>(out)] = true;
    }
    release_aliases();
  }
  return names;
}

}  // namespace tinyfit::driver
