#include "partition/partition_scheme.h"

#include <algorithm>
#include <functional>

#include "ir/op_decl.h"

namespace tinyfit::partition {
namespace {

// The axis of a tensor a scheme of `axis` walks: rows are axis 1 of NHWC
// tensors, tokens the second-to-last of [.., tokens, features] (rank 2 or 3),
// channels the last axis.
int find_walked_axis(const ir::Tensor& tensor, PartitionAxis axis) {
  const int rank = static_cast<int>(tensor.shape.size());
  switch (axis) {
    case PartitionAxis::kRows: return rank >= 3 ? 1 : -1;
    case PartitionAxis::kTokens: return rank == 2 || rank == 3 ? rank - 2 : -1;
    case PartitionAxis::kChannels: return rank >= 1 ? rank - 1 : -1;
  }
  return -1;
}

bool has_vertex_in(const AxisConnectingGraph& acg, const std::vector<bool>& in_a, ir::TensorId tensor) {
  for (int v : acg.vertex_of_axis[static_cast<size_t>(tensor)]) {
    if (v >= 0 && in_a[static_cast<size_t>(v)]) return true;
  }
  return false;
}

bool has_reduce_in(const AxisConnectingGraph& acg, const std::vector<bool>& in_a, ir::NodeId node) {
  const int reduce = acg.reduce_vertex_of_node[static_cast<size_t>(node)];
  return reduce >= 0 && in_a[static_cast<size_t>(reduce)];
}

tl::unexpected<Diag> reject_scheme(const std::string& why) { return fail(why, ExitCode::kInternal); }

}  // namespace

bool accumulates_rows(const ir::Graph& graph, const ir::Node& node) {
  if (!ir::op_decl(node.op).folds_windows || node.inputs.empty() || node.outputs.size() != 1) return false;
  const ir::Tensor& input = graph.input_tensor(node, 0);
  const ir::Tensor& output = graph.output_tensor(node, 0);
  if (input.shape.size() != 4 || output.shape.size() != 4 || output.shape[1] != 1 || output.shape[2] != 1) return false;
  if (input.dtype != ir::DType::kI8 && input.dtype != ir::DType::kU8) return false;
  const ir::AxisMap map = ir::op_decl(node.op).map_axes(graph, node);
  for (int axis : {1, 2}) {
    const auto link = std::find_if(map.links.begin(), map.links.end(),
                                   [&](const ir::AxisLink& l) { return l.output_axis == axis && l.input_index == 0; });
    if (link == map.links.end() || link->role != ir::AxisRole::kWindow) return false;
    const ir::Window& w = link->window;
    if (w.pad_before != 0 || w.dilation != 1 || w.kernel != input.shape[static_cast<size_t>(axis)]) return false;
  }
  return true;
}

bool ends_in_accumulated_pool(const ir::Graph& graph, const analysis::BufferGraph& bg, const std::vector<int>& ops) {
  if (ops.size() < 2) return false;
  return accumulates_rows(graph, graph.nodes[static_cast<size_t>(bg.operators[static_cast<size_t>(ops.back())].node)]);
}

std::string_view partition_axis_name(PartitionAxis axis) {
  switch (axis) {
    case PartitionAxis::kRows: return "rows";
    case PartitionAxis::kChannels: return "channels";
    case PartitionAxis::kTokens: return "tokens";
  }
  return "?";
}

std::vector<bool> select_subgraph_vertices(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                           const AxisConnectingGraph& acg, const std::vector<int>& operators) {
  std::vector<bool> in_subgraph(acg.vertices.size(), false);
  std::vector<bool> touched_buffer(bg.buffers.size(), false);
  for (int op : operators) {
    const analysis::Operator& o = bg.operators[static_cast<size_t>(op)];
    for (int b : o.inputs) touched_buffer[static_cast<size_t>(b)] = true;
    for (int b : o.outputs) touched_buffer[static_cast<size_t>(b)] = true;
    const int reduce = acg.reduce_vertex_of_node[static_cast<size_t>(o.node)];
    if (reduce >= 0) in_subgraph[static_cast<size_t>(reduce)] = true;
  }
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const int b = bg.buffer_of_tensor[t];
    if (b < 0 || !touched_buffer[static_cast<size_t>(b)]) continue;
    for (int v : acg.vertex_of_axis[t]) {
      if (v >= 0) in_subgraph[static_cast<size_t>(v)] = true;
    }
  }
  return in_subgraph;
}

Result<PartitionScheme> make_partition_scheme(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                              const AxisConnectingGraph& acg, std::vector<int> operators,
                                              PartitionAxis axis, int64_t tile) {
  TINYFIT_CHECK(!operators.empty() && tile >= 1) << "a scheme of no operators or tile " << tile;
  std::sort(operators.begin(), operators.end());
  operators.erase(std::unique(operators.begin(), operators.end()), operators.end());
  std::vector<bool> node_in_s(graph.nodes.size(), false);
  for (int op : operators) node_in_s[static_cast<size_t>(bg.operators[static_cast<size_t>(op)].node)] = true;

  const ir::Node& first = graph.nodes[static_cast<size_t>(bg.operators[static_cast<size_t>(operators.front())].node)];
  const ir::Tensor& first_output = graph.tensor(first.outputs.front());
  const int walked = find_walked_axis(first_output, axis);
  const int seed = walked < 0 ? -1 : acg.vertex_of_axis[static_cast<size_t>(first.outputs.front())][static_cast<size_t>(walked)];
  if (seed < 0) {
    return reject_scheme("'" + first.name + "' has no " + std::string(partition_axis_name(axis)) + " to cut");
  }

  PartitionScheme scheme;
  scheme.axis = axis;
  scheme.operators = std::move(operators);
  std::vector<bool> in_a(acg.vertices.size(), false);
  for (const std::vector<int>& component :
       find_acg_components(acg, select_subgraph_vertices(graph, bg, acg, scheme.operators))) {
    if (!std::binary_search(component.begin(), component.end(), seed)) continue;
    scheme.acg_vertices = component;
    for (int v : component) in_a[static_cast<size_t>(v)] = true;
  }

  const std::vector<std::vector<ir::NodeId>> consumers = graph.compute_consumers();
  const std::vector<ir::NodeId> producers = graph.compute_producers();
  auto is_graph_output = [&graph](ir::TensorId t) {
    return std::find(graph.outputs.begin(), graph.outputs.end(), t) != graph.outputs.end();
  };
  // Read after the scheme, kept as a model output, or read by nobody (a
  // Split's unused part): the whole tensor is made. A Reshape (an alias)
  // passes its readers on.
  std::function<bool(ir::TensorId)> escapes = [&](ir::TensorId t) {
    const std::vector<ir::NodeId>& readers = consumers[static_cast<size_t>(t)];
    return is_graph_output(t) || readers.empty() || std::any_of(readers.begin(), readers.end(), [&](ir::NodeId n) {
             const ir::Node& reader = graph.nodes[static_cast<size_t>(n)];
             if (ir::op_decl(reader.op).is_alias) return escapes(reader.outputs.front());
             return !node_in_s[static_cast<size_t>(n)];
           });
  };
  for (int op : scheme.operators) {
    const ir::Node& node = graph.nodes[static_cast<size_t>(bg.operators[static_cast<size_t>(op)].node)];
    for (ir::TensorId t : node.inputs) {
      if (t == ir::kNoTensor || graph.tensor(t).is_constant) continue;
      const ir::NodeId producer = producers[static_cast<size_t>(t)];
      if (producer >= 0 && node_in_s[static_cast<size_t>(producer)]) continue;
      if (producer >= 0 && ir::op_decl(graph.nodes[static_cast<size_t>(producer)].op).is_alias) {
        const int buffer = bg.buffer_of_tensor[static_cast<size_t>(t)];
        const int maker = bg.buffers[static_cast<size_t>(buffer)].producer;
        // A reshape of a tensor made in the scheme: its tokens are that
        // tensor's when the reshape keeps the walked axis (row_geometry.h
        // find_loop_axes checks it). Row loops read no reshape.
        if (maker >= 0 && node_in_s[static_cast<size_t>(bg.operators[static_cast<size_t>(maker)].node)]) {
          if (axis == PartitionAxis::kTokens) continue;
          return reject_scheme("'" + node.name + "' reads an alias of a tensor made in the scheme");
        }
      }
      if (has_vertex_in(acg, in_a, t)) scheme.split_inputs.push_back(t);
    }
    for (ir::TensorId t : node.outputs) {
      if (escapes(t)) scheme.outputs.push_back(t);
    }
  }
  auto sort_unique = [](std::vector<ir::TensorId>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  sort_unique(scheme.split_inputs);
  sort_unique(scheme.outputs);

  // The extent the parts cut: rows of the last operator's output (the loop's
  // sink: a row loop walks them, every other tensor's rows follow through
  // the windows), channels of the first operator's output.
  scheme.extent = acg.vertices[static_cast<size_t>(seed)].extent;
  if (axis != PartitionAxis::kChannels) {
    const ir::Node& last = graph.nodes[static_cast<size_t>(bg.operators[static_cast<size_t>(scheme.operators.back())].node)];
    const ir::Tensor& sink = graph.tensor(last.outputs.front());
    const int sink_axis = find_walked_axis(sink, axis);
    if (sink_axis < 0) {
      return reject_scheme("'" + last.name + "' makes a tensor without " + std::string(partition_axis_name(axis)));
    }
    scheme.extent = sink.shape[static_cast<size_t>(sink_axis)];
    // A global pool at the end accumulates the rows of its input.
    if (axis == PartitionAxis::kRows && ends_in_accumulated_pool(graph, bg, scheme.operators)) {
      scheme.extent = graph.input_tensor(last, 0).shape[1];
    }
  }
  scheme.tile = std::min(tile, scheme.extent);
  TINYFIT_RETURN_IF_ERROR(check_motes_conditions(graph, bg, acg, scheme));
  return scheme;
}

Status check_motes_conditions(const ir::Graph& graph, const analysis::BufferGraph& bg,
                              const AxisConnectingGraph& acg, const PartitionScheme& scheme) {
  std::vector<bool> in_a(acg.vertices.size(), false);
  for (int v : scheme.acg_vertices) in_a[static_cast<size_t>(v)] = true;
  auto is_output = [&scheme](ir::TensorId t) {
    return std::binary_search(scheme.outputs.begin(), scheme.outputs.end(), t);
  };
  for (int op : scheme.operators) {
    const ir::NodeId id = bg.operators[static_cast<size_t>(op)].node;
    const ir::Node& node = graph.nodes[static_cast<size_t>(id)];
    const bool reduced = has_reduce_in(acg, in_a, id);
    for (ir::TensorId t : node.outputs) {
      // (1): an output of S is partitioned (an axis in A) or reduced (v@0 in A).
      if (is_output(t) && !has_vertex_in(acg, in_a, t) && !reduced) {
        return reject_scheme("output '" + graph.tensor(t).name +
                             "' is neither cut nor reduced along the scheme's axis");
      }
      // (2): only an output of S may be cut along its reduce axis.
      if (!is_output(t) && reduced) {
        return reject_scheme("'" + node.name + "' would hand a partial sum to another operator of the scheme");
      }
      // tinyfit: no operator off A (it would run whole in every part).
      if (!has_vertex_in(acg, in_a, t) && !reduced) {
        return reject_scheme("'" + node.name + "' is not on the scheme's axis and would be recomputed in every part");
      }
    }
  }
  return {};
}

std::string describe_scheme(const analysis::BufferGraph& bg, const PartitionScheme& scheme) {
  const std::string& first = bg.operators[static_cast<size_t>(scheme.operators.front())].name;
  const std::string& last = bg.operators[static_cast<size_t>(scheme.operators.back())].name;
  return std::string(partition_axis_name(scheme.axis)) + " tile " + std::to_string(scheme.tile) + " of " +
         std::to_string(scheme.extent) + " over " + first + (scheme.operators.size() > 1 ? ".." + last : "") + " (" +
         std::to_string(scheme.operators.size()) + " operators)";
}

}  // namespace tinyfit::partition
