#include "ir/graph.h"

#include "support/diag.h"

namespace tinyfit::ir {

TensorId Graph::add_tensor(Tensor tensor) {
  tensors.push_back(std::move(tensor));
  return static_cast<TensorId>(tensors.size() - 1);
}

NodeId Graph::add_node(Node node) {
  nodes.push_back(std::move(node));
  return static_cast<NodeId>(nodes.size() - 1);
}

std::vector<NodeId> Graph::compute_producers() const {
  std::vector<NodeId> producers(tensors.size(), -1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (TensorId out : nodes[n].outputs) {
      if (out != kNoTensor) producers.at(static_cast<size_t>(out)) = static_cast<NodeId>(n);
    }
  }
  return producers;
}

std::vector<std::vector<NodeId>> Graph::compute_consumers() const {
  std::vector<std::vector<NodeId>> consumers(tensors.size());
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (TensorId in : nodes[n].inputs) {
      if (in == kNoTensor) continue;
      auto& list = consumers.at(static_cast<size_t>(in));
      if (list.empty() || list.back() != static_cast<NodeId>(n)) {
        list.push_back(static_cast<NodeId>(n));
      }
    }
  }
  return consumers;
}

void Graph::remove_unused_tensors() {
  std::vector<bool> used(tensors.size(), false);
  auto mark = [&](TensorId id) {
    if (id != kNoTensor) used.at(static_cast<size_t>(id)) = true;
  };
  for (const Node& node : nodes) {
    for (TensorId id : node.inputs) mark(id);
    for (TensorId id : node.outputs) mark(id);
  }
  for (TensorId id : inputs) mark(id);
  for (TensorId id : outputs) mark(id);

  std::vector<TensorId> remap(tensors.size(), kNoTensor);
  std::vector<Tensor> kept;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!used[i]) continue;
    remap[i] = static_cast<TensorId>(kept.size());
    kept.push_back(std::move(tensors[i]));
  }
  auto renumber = [&](TensorId& id) {
    if (id != kNoTensor) id = remap.at(static_cast<size_t>(id));
  };
  for (Node& node : nodes) {
    for (TensorId& id : node.inputs) renumber(id);
    for (TensorId& id : node.outputs) renumber(id);
  }
  for (TensorId& id : inputs) renumber(id);
  for (TensorId& id : outputs) renumber(id);
  tensors = std::move(kept);
}

int64_t Graph::flash_bytes() const {
  int64_t total = 0;
  for (const Tensor& t : tensors) {
    if (t.is_constant) total += static_cast<int64_t>(t.data.size());
  }
  return total;
}

}  // namespace tinyfit::ir
