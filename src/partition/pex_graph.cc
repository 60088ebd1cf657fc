#include "partition/pex_graph.h"

#include <algorithm>

#include "ir/op_decl.h"

namespace tinyfit::partition {
namespace {

int64_t last_axis(const ir::Tensor& tensor) { return tensor.shape.empty() ? 0 : tensor.shape.back(); }

PexKind kind_of(const ir::Graph& graph, const ir::Node& node) {
  switch (ir::op_decl(node.op).kind(graph, node)) {
    case ir::OpKind::kChannelwise: return PexKind::kChannelwise;
    case ir::OpKind::kAggregating: return PexKind::kAggregating;
    case ir::OpKind::kOther: break;
  }
  return PexKind::kOther;
}

}  // namespace

int64_t accumulator_element_bytes(ir::DType output_dtype, int accumulator_bits) {
  if (output_dtype == ir::DType::kF32) return 4;
  return accumulator_bits / 8;
}

PexGraph build_pex_graph(const ir::Graph& graph, const analysis::BufferGraph& bg, int accumulator_bits) {
  PexGraph pg;
  pg.buffers.resize(bg.buffers.size());
  for (size_t b = 0; b < bg.buffers.size(); ++b) {
    const analysis::Buffer& source = bg.buffers[b];
    PexBuffer& buffer = pg.buffers[b];
    buffer.bytes = source.bytes;
    buffer.producer = source.producer;
    buffer.consumers = source.consumers;
    buffer.is_model_output = source.is_model_output;
  }
  // The channels of a buffer: the last axis of the tensor that owns it (not an alias).
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const int b = bg.buffer_of_tensor[t];
    if (b < 0 || bg.buffers[static_cast<size_t>(b)].name != graph.tensors[t].name) continue;
    pg.buffers[static_cast<size_t>(b)].channels = last_axis(graph.tensors[t]);
  }

  pg.operators.resize(bg.operators.size());
  for (size_t v = 0; v < bg.operators.size(); ++v) {
    const analysis::Operator& source = bg.operators[v];
    const ir::Node& node = graph.nodes.at(static_cast<size_t>(source.node));
    PexOperator& op = pg.operators[v];
    op.kind = kind_of(graph, node);
    op.outputs = source.outputs;
    op.workspace_bytes = source.workspace_bytes;
    int activation_inputs = 0;
    for (ir::TensorId t : node.inputs) {
      if (t == ir::kNoTensor || graph.tensor(t).is_constant) continue;
      ++activation_inputs;
      const int b = bg.buffer_of_tensor.at(static_cast<size_t>(t));
      const int64_t channels = last_axis(graph.tensor(t));
      auto same = std::find_if(op.inputs.begin(), op.inputs.end(), [&](const PexRead& r) { return r.buffer == b; });
      if (same == op.inputs.end()) {
        op.inputs.push_back({b, channels});
      } else if (same->channels != channels) {
        same->channels = -1;  // read through two shapes: no single chunk axis
      }
    }
    if (op.kind == PexKind::kOther || node.outputs.size() != 1 || op.outputs.size() != 1) continue;
    const ir::Tensor& output = graph.output_tensor(node, 0);
    const int64_t out_channels = last_axis(output);
    if (out_channels <= 0) continue;
    if (op.kind == PexKind::kChannelwise) {
      op.chunkable = !op.inputs.empty() && std::all_of(op.inputs.begin(), op.inputs.end(), [&](const PexRead& r) {
        return r.channels == out_channels;
      });
    } else {
      op.chunkable = activation_inputs == 1 && op.inputs.size() == 1 && op.inputs[0].channels > 0;
      const int64_t element_bytes = accumulator_element_bytes(output.dtype, accumulator_bits);
      op.accumulator_bytes = output.num_elements() * element_bytes;
      op.finalize_in_place = element_bytes == ir::dtype_size_bytes(output.dtype);
    }
  }
  return pg;
}

}  // namespace tinyfit::partition
