#include "import/fuse_activations.h"

#include <algorithm>

#include "import/graph_rewrite.h"
#include "ir/op_decl.h"

namespace tinyfit::import {

void fuse_activations(ir::Graph& graph) {
  std::vector<bool> dead(graph.nodes.size(), false);
  const auto producers = graph.compute_producers();
  const auto consumers = graph.compute_consumers();
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& clip = graph.nodes[n];
    if (clip.op != ir::OpType::kClip || clip.inputs.size() != 1) continue;
    const ir::TensorId in = clip.inputs[0];
    const ir::NodeId p = producers[static_cast<size_t>(in)];
    if (p < 0 || dead[static_cast<size_t>(p)]) continue;
    ir::Node& producer = graph.nodes[static_cast<size_t>(p)];
    if (!ir::op_decl(producer.op).fuses_activation || producer.outputs.size() != 1) continue;
    if (consumers[static_cast<size_t>(in)].size() != 1 || is_graph_output(graph, in)) continue;
    const ir::Tensor& a = graph.tensor(in);
    const ir::Tensor& b = graph.tensor(clip.outputs[0]);
    if (a.dtype != b.dtype) continue;
    // Composing clamps: the intersection of both ranges.
    const auto& c = clip.attr<ir::ClipAttrs>();
    producer.activation.min = std::max(producer.activation.min, c.min);
    producer.activation.max = std::min(producer.activation.max, c.max);
    producer.outputs[0] = clip.outputs[0];
    absorb_after(producer, clip);
    dead[n] = true;
  }
  erase_nodes(graph, dead);
}

}  // namespace tinyfit::import
