// The graph IR: tensors, and nodes kept in a valid execution order (the model's
// own order after import: "the given order").
#pragma once

#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/op_type.h"
#include "ir/tensor.h"

namespace tinyfit::ir {

using NodeId = int32_t;

struct Node {
  // Unique among the graph's nodes. For a node of the input model, its name
  // there; for a synthesized node, a readable name derived from the model node
  // it serves ("conv1/transpose").
  std::string name;
  // True when an importer or pass created this node and it is not a node of
  // the input model (a layout transpose, a helper reshape, the second Add of a
  // Sum). Its name then never appears in any node's source_nodes, so tools that
  // map the IR back to the model (the DESIGN.md `schedule`) skip it.
  bool synthesized = false;
  OpType op = OpType::kAdd;
  std::vector<TensorId> inputs;  // kNoTensor marks an absent optional input
  std::vector<TensorId> outputs;
  OpAttrs attrs;
  FusedActivation activation;
  // Every input-model node this IR node runs, in the input model's execution
  // order: its own name (unless synthesized) together with the nodes folded
  // into it at import (a Pad or DequantizeLinear before it, a Relu,
  // BatchNormalization or QuantizeLinear after it, constant subgraphs feeding
  // it). Across an imported graph each input-model node is listed by exactly
  // one IR node, and folded nodes keep their place relative to the node's
  // own, so expanding the IR's order through these lists gives an order of
  // the input model's nodes that respects its edges (driver/schedule_names.h).
  // Graphs built by hand (tests) may leave it empty.
  std::vector<std::string> source_nodes;

  template <typename A>
  const A& attr() const { return std::get<A>(attrs); }
};

struct Graph {
  std::string name;         // model name
  std::string source_path;  // the file it came from (for messages), or "zoo:NAME"
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;

  TensorId add_tensor(Tensor tensor);
  NodeId add_node(Node node);
  const Tensor& tensor(TensorId id) const { return tensors.at(static_cast<size_t>(id)); }
  Tensor& tensor(TensorId id) { return tensors.at(static_cast<size_t>(id)); }
  const Tensor& input_tensor(const Node& node, size_t i) const { return tensor(node.inputs.at(i)); }
  const Tensor& output_tensor(const Node& node, size_t i) const {
    return tensor(node.outputs.at(i));
  }
  bool has_input(const Node& node, size_t i) const {
    return i < node.inputs.size() && node.inputs[i] != kNoTensor;
  }

  // Producer node of each tensor (-1 for inputs and constants); O(nodes).
  std::vector<NodeId> compute_producers() const;
  // Consumer nodes of each tensor, in node order; O(edges).
  std::vector<std::vector<NodeId>> compute_consumers() const;

  // Drops tensors that no node or graph input/output references and renumbers
  // the rest, keeping their relative order. Passes call it after rewriting.
  void remove_unused_tensors();

  // Sum of the constants' bytes: what lives in flash.
  int64_t flash_bytes() const;
};

}  // namespace tinyfit::ir
