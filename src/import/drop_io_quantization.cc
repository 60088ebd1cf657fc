#include "import/drop_io_quantization.h"

#include "import/graph_rewrite.h"

namespace tinyfit::import {
namespace {

void drop_input_quantize(ir::Graph& graph, ir::TensorId input, std::vector<bool>& dead) {
  const auto consumers = graph.compute_consumers();
  // Follow single-reader reshapes to the Quantize.
  std::vector<ir::NodeId> chain;
  ir::TensorId t = input;
  for (;;) {
    const auto& readers = consumers[static_cast<size_t>(t)];
    if (readers.size() != 1 || is_graph_output(graph, t)) return;
    const ir::Node& r = graph.nodes[static_cast<size_t>(readers[0])];
    if (r.op == ir::OpType::kQuantize) break;
    if (r.op != ir::OpType::kReshape) return;
    chain.push_back(readers[0]);
    t = r.outputs[0];
  }
  const ir::NodeId q = consumers[static_cast<size_t>(t)][0];
  const ir::Node quantize = graph.nodes[static_cast<size_t>(q)];
  const ir::Tensor& qout = graph.tensor(quantize.outputs[0]);
  const ir::DType dtype = qout.dtype;
  const auto quant = qout.quant;
  graph.tensor(input).dtype = dtype;
  graph.tensor(input).quant = quant;
  for (ir::NodeId r : chain) {
    ir::Tensor& out = graph.tensor(graph.nodes[static_cast<size_t>(r)].outputs[0]);
    out.dtype = dtype;
    out.quant = quant;
  }
  replace_tensor_uses(graph, quantize.outputs[0], t);
  dead[static_cast<size_t>(q)] = true;
  // The dropped Quantize is listed with the first node that reads the input.
  const auto after = graph.compute_consumers();
  const auto& readers = after[static_cast<size_t>(t)];
  ir::NodeId host = chain.empty() ? (readers.empty() ? -1 : readers[0]) : chain.back();
  for (ir::NodeId r : readers) {
    if (!dead[static_cast<size_t>(r)] && chain.empty()) {
      host = r;
      break;
    }
  }
  // It ran after the reshapes of the chain, before the nodes reading its output.
  if (host >= 0 && !chain.empty()) absorb_after(graph.nodes[static_cast<size_t>(host)], quantize);
  if (host >= 0 && chain.empty()) absorb_before(graph.nodes[static_cast<size_t>(host)], quantize);
}

void drop_output_dequantize(ir::Graph& graph, size_t index, std::vector<bool>& dead) {
  const ir::TensorId output = graph.outputs[index];
  const auto producers = graph.compute_producers();
  const auto consumers = graph.compute_consumers();
  const ir::NodeId d = producers[static_cast<size_t>(output)];
  if (d < 0 || graph.nodes[static_cast<size_t>(d)].op != ir::OpType::kDequantize) return;
  if (!consumers[static_cast<size_t>(output)].empty()) return;
  const ir::Node dequantize = graph.nodes[static_cast<size_t>(d)];
  const ir::TensorId q = dequantize.inputs[0];
  const ir::NodeId p = producers[static_cast<size_t>(q)];
  if (p < 0 || is_graph_output(graph, q)) return;
  graph.tensor(q).name = graph.tensor(output).name;
  graph.outputs[index] = q;
  dead[static_cast<size_t>(d)] = true;
  absorb_after(graph.nodes[static_cast<size_t>(p)], dequantize);
}

}  // namespace

void drop_io_quantization(ir::Graph& graph) {
  std::vector<bool> dead(graph.nodes.size(), false);
  for (ir::TensorId input : graph.inputs) {
    if (graph.tensor(input).dtype == ir::DType::kF32) drop_input_quantize(graph, input, dead);
  }
  for (size_t i = 0; i < graph.outputs.size(); ++i) drop_output_dequantize(graph, i, dead);
  erase_nodes(graph, dead);
}

}  // namespace tinyfit::import
