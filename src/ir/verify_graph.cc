#include "ir/verify_graph.h"

#include <map>
#include <set>

#include "ir/op_decl.h"

namespace tinyfit::ir {

Status verify_graph(const Graph& graph) {
  auto error = [&](const Node* node, std::string message) {
    Diag d{ExitCode::kBadInput, graph.source_path, {}, {}, std::move(message)};
    if (node) {
      d.node = node->name;
      d.op = std::string(op_type_name(node->op));
    }
    return tl::unexpected<Diag>(std::move(d));
  };
  const auto tensor_count = static_cast<TensorId>(graph.tensors.size());
  auto valid = [&](TensorId id) { return id >= 0 && id < tensor_count; };

  // Tensor names are how reports, the C API and other tools refer to tensors.
  std::map<std::string, TensorId> tensor_names;
  for (TensorId id = 0; id < tensor_count; ++id) {
    const auto [it, added] = tensor_names.emplace(graph.tensor(id).name, id);
    if (!added) {
      return error(nullptr, "tensor name '" + graph.tensor(id).name + "' is used by tensors " +
                                std::to_string(it->second) + " and " + std::to_string(id) +
                                "; tensor names must be unique");
    }
  }
  std::vector<bool> available(graph.tensors.size(), false);
  for (TensorId id = 0; id < tensor_count; ++id) {
    const Tensor& t = graph.tensor(id);
    if (t.is_constant) {
      if (static_cast<int64_t>(t.data.size()) != t.size_bytes()) {
        return error(nullptr, "constant '" + t.name + "' holds " + std::to_string(t.data.size()) +
                                  " bytes, its shape " + format_shape(t.shape) + " needs " +
                                  std::to_string(t.size_bytes()));
      }
      available[id] = true;
    }
  }
  for (TensorId id : graph.inputs) {
    if (!valid(id)) return error(nullptr, "graph input refers to a tensor that does not exist");
    available[id] = true;
  }
  std::vector<bool> produced(graph.tensors.size(), false);
  std::set<std::string> names;
  for (const Node& node : graph.nodes) {
    if (!names.insert(node.name).second) return error(&node, "node name is not unique");
    for (TensorId in : node.inputs) {
      if (in == kNoTensor) continue;
      if (!valid(in)) return error(&node, "input refers to a tensor that does not exist");
      if (!available[in]) {
        return error(&node, "input '" + graph.tensor(in).name +
                                "' is not produced before this node (cycle or missing producer)");
      }
    }
    for (TensorId out : node.outputs) {
      if (!valid(out)) return error(&node, "output refers to a tensor that does not exist");
      if (produced[out] || graph.tensor(out).is_constant) {
        return error(&node, "output '" + graph.tensor(out).name + "' has more than one producer");
      }
      produced[out] = available[out] = true;
      const Tensor& t = graph.tensor(out);
      if (is_quantized_dtype(t.dtype) && !t.quant) {
        return error(&node, "quantized output '" + t.name + "' has no quantization parameters");
      }
    }
    if (!node.activation.is_none() && !op_decl(node.op).fuses_activation) {
      return error(&node, "has a fused activation, which this operator does not take");
    }
    auto shapes = op_decl(node.op).infer_shapes(graph, node);
    if (!shapes) return error(&node, shapes.error().message);
    for (size_t i = 0; i < shapes->size() && i < node.outputs.size(); ++i) {
      if (graph.tensor(node.outputs[i]).shape != (*shapes)[i]) {
        return error(&node, "output '" + graph.tensor(node.outputs[i]).name + "' has shape " +
                                format_shape(graph.tensor(node.outputs[i]).shape) + ", expected " +
                                format_shape((*shapes)[i]));
      }
    }
  }
  for (TensorId id : graph.outputs) {
    if (!valid(id)) return error(nullptr, "graph output refers to a tensor that does not exist");
    if (!available[id]) {
      return error(nullptr, "graph output '" + graph.tensor(id).name + "' is never produced");
    }
  }
  return {};
}

}  // namespace tinyfit::ir
