#include "import/fold_batch_norm.h"

#include <optional>

#include "import/graph_rewrite.h"

namespace tinyfit::import {
namespace {

// Values per output channel of a float constant shaped [C], [1,...,1,C] or a
// scalar; nullopt for anything else.
std::optional<std::vector<float>> per_channel(const ir::Tensor& t, int64_t channels) {
  if (!t.is_constant || t.dtype != ir::DType::kF32) return std::nullopt;
  for (size_t i = 0; i + 1 < t.shape.size(); ++i) {
    if (t.shape[i] != 1) return std::nullopt;
  }
  const auto values = t.values<float>();
  if (values.size() == 1) return std::vector<float>(static_cast<size_t>(channels), values[0]);
  if (t.shape.empty() || t.shape.back() != channels) return std::nullopt;
  return std::vector<float>(values.begin(), values.end());
}

bool is_float_conv(const ir::Graph& g, const ir::Node& n) {
  if (n.op != ir::OpType::kConv2D && n.op != ir::OpType::kDepthwiseConv2D) return false;
  const ir::Tensor& w = g.input_tensor(n, 1);
  return w.is_constant && w.dtype == ir::DType::kF32 && g.output_tensor(n, 0).dtype == ir::DType::kF32 &&
         (!g.has_input(n, 2) || (g.input_tensor(n, 2).is_constant && g.input_tensor(n, 2).dtype == ir::DType::kF32));
}

// The constant input `input` of `conv`, for this fold to rewrite: itself when
// the convolution is its only reader, else a copy (constants may be shared).
ir::TensorId own_constant(ir::Graph& g, ir::Node& conv, size_t input, const std::string& role) {
  const ir::TensorId id = conv.inputs[input];
  int readers = 0;
  for (const ir::Node& n : g.nodes) {
    for (ir::TensorId in : n.inputs) readers += in == id ? 1 : 0;
  }
  if (readers == 1 && !is_graph_output(g, id)) return id;
  ir::Tensor copy = g.tensor(id);
  copy.name = unique_tensor_name(g, conv.name + "/" + role);
  conv.inputs[input] = g.add_tensor(std::move(copy));
  return conv.inputs[input];
}

// Output channel of each weight element: axis 0 for Conv2D, 3 for depthwise.
void scale_weights(ir::Graph& g, ir::Node& conv, const std::vector<float>& s) {
  ir::Tensor& w = g.tensor(own_constant(g, conv, 1, "weights"));
  auto values = w.mutable_values<float>();
  const auto channels = static_cast<int64_t>(s.size());
  const int64_t inner = w.num_elements() / channels;
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t c = conv.op == ir::OpType::kConv2D ? static_cast<int64_t>(i) / inner
                                                     : static_cast<int64_t>(i) % channels;
    values[i] *= s[static_cast<size_t>(c)];
  }
}

// b' = b * s + t (missing bias reads as 0).
void update_bias(ir::Graph& g, ir::Node& conv, const std::vector<float>& s, const std::vector<float>& t) {
  const auto channels = static_cast<int64_t>(s.size());
  if (!g.has_input(conv, 2)) {
    ir::Tensor b;
    b.name = unique_tensor_name(g, conv.name + "/bias");
    b.dtype = ir::DType::kF32;
    b.shape = {channels};
    b.is_constant = true;
    b.data.assign(static_cast<size_t>(channels) * sizeof(float), 0);
    if (conv.inputs.size() < 3) conv.inputs.resize(3, ir::kNoTensor);
    conv.inputs[2] = g.add_tensor(std::move(b));
  }
  ir::Tensor& b = g.tensor(own_constant(g, conv, 2, "bias"));
  auto values = b.mutable_values<float>();
  for (size_t c = 0; c < values.size(); ++c) values[c] = values[c] * s[c] + t[c];
}

// Folds the first foldable Mul/Add; false when none is left. Restarting after
// each fold keeps producers exact (Conv -> Mul -> Add folds in two steps).
bool fold_one(ir::Graph& graph) {
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node node = graph.nodes[n];
    if ((node.op != ir::OpType::kMul && node.op != ir::OpType::kAdd) || node.inputs.size() != 2) continue;
    const auto producers = graph.compute_producers();
    const auto consumers = graph.compute_consumers();
    const ir::TensorId x = node.inputs[0];
    const ir::NodeId p = producers[static_cast<size_t>(x)];
    if (p < 0) continue;
    ir::Node& conv = graph.nodes[static_cast<size_t>(p)];
    if (!is_float_conv(graph, conv) || !conv.activation.is_none()) continue;
    if (consumers[static_cast<size_t>(x)].size() != 1 || is_graph_output(graph, x)) continue;
    const ir::Tensor& out = graph.output_tensor(node, 0);
    if (out.shape != graph.tensor(x).shape) continue;  // the constant must not broadcast the result
    const int64_t channels = graph.tensor(x).shape.back();
    auto k = per_channel(graph.tensor(node.inputs[1]), channels);
    if (!k) continue;
    const std::vector<float> ones(static_cast<size_t>(channels), 1.0f), zeros(static_cast<size_t>(channels), 0.0f);
    if (node.op == ir::OpType::kMul) {
      scale_weights(graph, conv, *k);
      if (graph.has_input(conv, 2)) update_bias(graph, conv, *k, zeros);
    } else {
      update_bias(graph, conv, ones, *k);
    }
    conv.outputs[0] = node.outputs[0];
    absorb_after(conv, node);
    graph.nodes.erase(graph.nodes.begin() + static_cast<ptrdiff_t>(n));
    return true;
  }
  return false;
}

}  // namespace

void fold_batch_norm(ir::Graph& graph) {
  while (fold_one(graph)) {
  }
}

}  // namespace tinyfit::import
