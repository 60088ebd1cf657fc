#include "partition/acg.h"

#include <algorithm>
#include <numeric>

namespace tinyfit::partition {
namespace {

bool is_reduced(const ir::AxisMap& map, int input_index, int input_axis) {
  return std::any_of(map.reduced.begin(), map.reduced.end(), [&](const ir::AxisMap::Reduced& r) {
    return r.input_index == input_index && r.input_axis == input_axis;
  });
}

// Union-find with path halving; roots are the smallest member, so component
// order is deterministic.
class DisjointSets {
 public:
  explicit DisjointSets(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int v) {
    while (parent_[static_cast<size_t>(v)] != v) {
      parent_[static_cast<size_t>(v)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(v)])];
      v = parent_[static_cast<size_t>(v)];
    }
    return v;
  }
  void unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

}  // namespace

AxisConnectingGraph build_acg(const ir::Graph& graph) {
  AxisConnectingGraph acg;
  acg.vertex_of_axis.resize(graph.tensors.size());
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    const ir::Tensor& tensor = graph.tensors[t];
    acg.vertex_of_axis[t].assign(tensor.shape.size(), -1);
    if (tensor.is_constant) continue;
    for (size_t axis = 0; axis < tensor.shape.size(); ++axis) {
      if (tensor.shape[axis] <= 1) continue;
      acg.vertex_of_axis[t][axis] = static_cast<int>(acg.vertices.size());
      acg.vertices.push_back({static_cast<ir::TensorId>(t), static_cast<int>(axis), -1, tensor.shape[axis]});
    }
  }
  auto axis_vertex = [&](ir::TensorId tensor, int axis) {
    if (tensor == ir::kNoTensor) return -1;
    const std::vector<int>& axes = acg.vertex_of_axis[static_cast<size_t>(tensor)];
    return axis >= 0 && static_cast<size_t>(axis) < axes.size() ? axes[static_cast<size_t>(axis)] : -1;
  };

  acg.reduce_vertex_of_node.assign(graph.nodes.size(), -1);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    const auto node_id = static_cast<ir::NodeId>(n);
    const ir::AxisMap map = ir::op_decl(node.op).map_axes(graph, node);
    // Definition 3: spatial axes, through every output (a Split's outputs all
    // follow the links).
    for (const ir::AxisLink& link : map.links) {
      if (link.broadcast || is_reduced(map, link.input_index, link.input_axis)) continue;
      if (!graph.has_input(node, static_cast<size_t>(link.input_index))) continue;
      const int from = axis_vertex(node.inputs[static_cast<size_t>(link.input_index)], link.input_axis);
      if (from < 0) continue;
      for (ir::TensorId output : node.outputs) {
        const int to = axis_vertex(output, link.output_axis);
        if (to >= 0) acg.edges.push_back({from, to, node_id, link.role, link.window, link.factor});
      }
    }
    // Definitions 2 and 4: the reduce axis and the input axes it sums over,
    // a global window's included (one output index over the whole input
    // axis: a global pool's rows and cols).
    std::vector<ir::AxisMap::Reduced> reduced = map.reduced;
    for (const ir::AxisLink& link : map.links) {
      if (link.role != ir::AxisRole::kWindow || !graph.has_input(node, static_cast<size_t>(link.input_index))) continue;
      const ir::Shape& in = graph.tensor(node.inputs[static_cast<size_t>(link.input_index)]).shape;
      const ir::Shape& out = graph.output_tensor(node, 0).shape;
      const auto in_axis = static_cast<size_t>(link.input_axis), out_axis = static_cast<size_t>(link.output_axis);
      if (in_axis < in.size() && out_axis < out.size() && out[out_axis] == 1 && in[in_axis] > 1 &&
          link.window.pad_before == 0 && link.window.dilation == 1 && link.window.kernel == in[in_axis]) {
        reduced.push_back({link.input_index, link.input_axis});
      }
    }
    int64_t reduced_extent = 1;
    std::vector<int> reduced_from;
    for (const ir::AxisMap::Reduced& r : reduced) {
      if (!graph.has_input(node, static_cast<size_t>(r.input_index))) continue;
      const ir::TensorId input = node.inputs[static_cast<size_t>(r.input_index)];
      const int from = axis_vertex(input, r.input_axis);
      if (from < 0) continue;
      reduced_from.push_back(from);
      if (r.input_index == 0) reduced_extent *= graph.tensor(input).shape[static_cast<size_t>(r.input_axis)];
    }
    if (reduced_from.empty()) continue;
    const int reduce = static_cast<int>(acg.vertices.size());
    acg.reduce_vertex_of_node[n] = reduce;
    acg.vertices.push_back({ir::kNoTensor, -1, node_id, reduced_extent});
    for (int from : reduced_from) acg.edges.push_back({from, reduce, node_id, ir::AxisRole::kIdentity, {}, 1});
  }
  return acg;
}

std::vector<std::vector<int>> find_acg_components(const AxisConnectingGraph& acg,
                                                  const std::vector<bool>& in_subgraph) {
  auto inside = [&](int v) { return in_subgraph.empty() || in_subgraph[static_cast<size_t>(v)]; };
  DisjointSets sets(acg.vertices.size());
  for (const AcgEdge& edge : acg.edges) {
    if (inside(edge.from) && inside(edge.to)) sets.unite(edge.from, edge.to);
  }
  std::vector<std::vector<int>> components;
  std::vector<int> component_of_root(acg.vertices.size(), -1);
  for (size_t v = 0; v < acg.vertices.size(); ++v) {
    if (!inside(static_cast<int>(v))) continue;
    const auto root = static_cast<size_t>(sets.find(static_cast<int>(v)));
    if (component_of_root[root] < 0) {
      component_of_root[root] = static_cast<int>(components.size());
      components.emplace_back();
    }
    components[static_cast<size_t>(component_of_root[root])].push_back(static_cast<int>(v));
  }
  return components;
}

std::string name_axis(size_t rank, int axis) {
  static const char* const kRank4[] = {"batch", "row", "col", "channel"};
  static const char* const kRank3[] = {"batch", "token", "channel"};
  static const char* const kRank2[] = {"batch", "channel"};
  if (axis >= 0 && static_cast<size_t>(axis) < rank) {
    if (rank == 4) return kRank4[axis];
    if (rank == 3) return kRank3[axis];
    if (rank == 2) return kRank2[axis];
  }
  return "axis" + std::to_string(axis);
}

std::string describe_acg_vertex(const ir::Graph& graph, const AcgVertex& vertex) {
  if (vertex.is_reduce()) return graph.nodes.at(static_cast<size_t>(vertex.reduce_node)).name + "@reduce";
  const ir::Tensor& tensor = graph.tensor(vertex.tensor);
  return tensor.name + "@" + name_axis(tensor.shape.size(), vertex.axis);
}

}  // namespace tinyfit::partition
