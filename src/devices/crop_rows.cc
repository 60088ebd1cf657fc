#include "devices/crop_rows.h"

#include <algorithm>
#include <map>

#include "devices/part_boxes.h"
#include "ir/verify_graph.h"

namespace tinyfit::devices {
namespace {

Status fail_node(const ir::Graph& graph, const ir::Node& node, const std::string& problem) {
  return fail(graph.source_path + ": node '" + node.name + "' (" + std::string(ir::op_decl(node.op).name) +
                  "): " + problem,
              ExitCode::kBadCommandLine);
}

bool is_row_tensor(const ir::Tensor& t) { return t.shape.size() == 4 && t.shape[0] == 1; }

ir::Range unite(ir::Range a, ir::Range b) {
  if (a.size() <= 0) return b;
  return {std::min(a.begin, b.begin), std::max(a.end, b.end)};
}

// The link of output rows to input `i`'s rows, or null.
const ir::AxisLink* find_row_link(const ir::AxisMap& map, size_t i) {
  for (const ir::AxisLink& link : map.links) {
    if (link.output_axis == kRowAxis && static_cast<size_t>(link.input_index) == i) return &link;
  }
  return nullptr;
}

// Whether the operator reduces input `i`'s rows entirely (a mean over them).
bool reduces_rows(const ir::AxisMap& map, size_t i) {
  for (const ir::AxisMap::Reduced& reduced : map.reduced) {
    if (static_cast<size_t>(reduced.input_index) == i && reduced.input_axis == kRowAxis) return true;
  }
  return false;
}

class Cropper {
 public:
  Cropper(const ir::Graph& graph, int head_nodes, const std::string& suffix)
      : graph_(graph),
        head_nodes_(head_nodes),
        suffix_(suffix),
        producers_(graph.compute_producers()),
        bands_(graph.tensors.size()) {}

  Result<BandGraph> crop(const std::vector<ir::Range>& output_rows) {
    TINYFIT_RETURN_IF_ERROR(set_boundary(output_rows));
    TINYFIT_RETURN_IF_ERROR(collect_bands());
    build_graph();
    TINYFIT_RETURN_IF_ERROR(ir::verify_graph(result_.graph));
    return std::move(result_);
  }

  Result<std::vector<ir::Range>> find_input_rows(const std::vector<ir::Range>& output_rows) {
    TINYFIT_RETURN_IF_ERROR(set_boundary(output_rows));
    TINYFIT_RETURN_IF_ERROR(collect_bands());
    std::vector<ir::Range> rows;
    for (ir::TensorId t : graph_.inputs) rows.push_back(bands_[static_cast<size_t>(t)]);
    return rows;
  }

  Status check(int parts) {
    const std::vector<ir::TensorId> boundary = find_head_boundary(graph_, head_nodes_);
    std::vector<ir::Range> rows;
    for (ir::TensorId t : boundary) {
      const ir::Tensor& tensor = graph_.tensor(t);
      if (is_row_tensor(tensor) && tensor.shape[kRowAxis] < parts) {
        return fail(graph_.source_path + ": tensor '" + tensor.name + "' has fewer rows than devices",
                    ExitCode::kBadCommandLine);
      }
      rows.push_back({0, is_row_tensor(tensor) ? tensor.shape[kRowAxis] : 0});
    }
    TINYFIT_RETURN_IF_ERROR(set_boundary(rows));
    return collect_bands();
  }

 private:
  Status set_boundary(const std::vector<ir::Range>& output_rows) {
    result_.boundary = find_head_boundary(graph_, head_nodes_);
    TINYFIT_CHECK(output_rows.size() == result_.boundary.size()) << "one band per boundary tensor";
    const std::vector<ir::NodeId> producers = graph_.compute_producers();
    for (size_t b = 0; b < result_.boundary.size(); ++b) {
      const ir::TensorId t = result_.boundary[b];
      const ir::NodeId producer = producers[static_cast<size_t>(t)];
      if (producer < 0 || producer >= head_nodes_ || !is_row_tensor(graph_.tensor(t))) {
        return fail(graph_.source_path + ": tensor '" + graph_.tensor(t).name +
                        "' crosses the cut and is not an NHWC tensor the first operators make",
                    ExitCode::kBadCommandLine);
      }
      bands_[static_cast<size_t>(t)] = output_rows[b];
    }
    for (ir::TensorId t : graph_.outputs) {
      const ir::NodeId producer = producers[static_cast<size_t>(t)];
      if (producer < head_nodes_) {
        return fail(graph_.source_path + ": output '" + graph_.tensor(t).name + "' is made before the cut",
                    ExitCode::kBadCommandLine);
      }
    }
    return {};
  }

  // The rows node `n`'s part reads of each input, for its output band.
  std::vector<ir::Range> read_rows(const ir::Node& node) const {
    const ir::Tensor& out = graph_.tensor(node.outputs[0]);
    Box box = make_full_box(out.shape);
    box.axes[kRowAxis] = bands_[static_cast<size_t>(node.outputs[0])];
    const std::vector<Box> inputs = compute_input_boxes(graph_, node, box);
    std::vector<ir::Range> rows(node.inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].axes.empty()) rows[i] = inputs[i].axes[kRowAxis];
    }
    return rows;
  }

  Status check_node(const ir::Node& node) const {
    if (node.outputs.size() != 1 || !is_row_tensor(graph_.tensor(node.outputs[0]))) {
      return fail_node(graph_, node, "a band of rows needs one NHWC output");
    }
    const ir::OpDecl& decl = ir::op_decl(node.op);
    if (decl.is_alias) return fail_node(graph_, node, "a reshape has no band of rows");
    const ir::AxisMap map = decl.map_axes(graph_, node);
    const ir::Tensor& out = graph_.tensor(node.outputs[0]);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!graph_.has_input(node, i) || graph_.input_tensor(node, i).is_constant) continue;
      const ir::Tensor& in = graph_.input_tensor(node, i);
      if (!is_row_tensor(in)) return fail_node(graph_, node, "input '" + in.name + "' is not NHWC");
      const ir::AxisLink* link = find_row_link(map, i);
      const bool one_to_one = link != nullptr && link->role == ir::AxisRole::kIdentity && !link->broadcast &&
                              link->input_axis == kRowAxis && in.shape[kRowAxis] == out.shape[kRowAxis];
      // A window, or one to one from a first row (a Slice's rows [0, end)),
      // whose copy the operator re-pads to its band.
      const bool window = link != nullptr && !link->broadcast && link->input_axis == kRowAxis &&
                          (link->role == ir::AxisRole::kWindow || link->role == ir::AxisRole::kIdentity) &&
                          decl.set_row_padding != nullptr;
      const bool broadcast = link != nullptr && link->broadcast;
      // A reduce over every row (a squeeze-excite block's mean) of a tensor
      // the bands make would need every device's rows: it ends a stage, and
      // the next stage's bands read its input whole (a graph input, every
      // row delivered to every device), each device computing it.
      const bool reduced = link == nullptr && reduces_rows(map, i) && out.shape[kRowAxis] == 1;
      if (reduced && producers_[static_cast<size_t>(node.inputs[i])] >= 0) {
        return fail_node(graph_, node, "it reduces every row of '" + in.name +
                                           "', which the bands make: a reduce over the rows ends a stage");
      }
      // Other axes may be read in part (a Slice of the columns): the copy
      // keeps the node's attributes there and its input's whole extent.
      if (!one_to_one && !window && !broadcast && !reduced) {
        return fail_node(graph_, node, "its rows are not a window or one to one of input '" + in.name + "'");
      }
    }
    return {};
  }

  // Bands of every head tensor: the union of what its consumers read, back
  // from the boundary.
  Status collect_bands() {
    for (int n = head_nodes_ - 1; n >= 0; --n) {
      const ir::Node& node = graph_.nodes[static_cast<size_t>(n)];
      if (node.outputs.size() == 1 && bands_[static_cast<size_t>(node.outputs[0])].size() <= 0) continue;  // unused
      TINYFIT_RETURN_IF_ERROR(check_node(node));
      const std::vector<ir::Range> rows = read_rows(node);
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (rows[i].size() <= 0) continue;
        ir::Range& band = bands_[static_cast<size_t>(node.inputs[i])];
        band = unite(band, rows[i]);
      }
    }
    return {};
  }

  // The band graph's copy of tensor t (its band's rows; constants whole).
  ir::TensorId copy_tensor(ir::TensorId t) {
    auto it = copies_.find(t);
    if (it != copies_.end()) return it->second;
    ir::Tensor tensor = graph_.tensor(t);
    if (!tensor.is_constant) tensor.shape[kRowAxis] = bands_[static_cast<size_t>(t)].size();
    const ir::TensorId id = result_.graph.add_tensor(std::move(tensor));
    copies_[t] = id;
    return id;
  }

  // Tensor t's rows `rows` (inside its band) for a consumer: the copy itself,
  // or a row Slice of it.
  ir::TensorId rows_of(ir::TensorId t, ir::Range rows, const std::string& consumer) {
    const ir::TensorId whole = copy_tensor(t);
    const ir::Range band = bands_[static_cast<size_t>(t)];
    if (rows == band) return whole;
    const auto key = std::make_pair(t, std::make_pair(rows.begin, rows.end));
    auto it = slices_.find(key);
    if (it != slices_.end()) return it->second;
    ir::Tensor sliced = result_.graph.tensor(whole);
    const ir::Shape from_shape = sliced.shape;
    sliced.name += "/rows" + std::to_string(rows.begin) + "_" + std::to_string(rows.end);
    sliced.shape[kRowAxis] = rows.size();
    const ir::TensorId id = result_.graph.add_tensor(std::move(sliced));
    ir::Node slice;
    slice.name = consumer + "/rows" + std::to_string(rows.begin) + "_" + std::to_string(rows.end);
    slice.synthesized = true;
    slice.op = ir::OpType::kSlice;
    slice.inputs = {whole};
    slice.outputs = {id};
    ir::SliceAttrs attrs;
    for (size_t a = 0; a < from_shape.size(); ++a) {
      attrs.begin.push_back(a == kRowAxis ? rows.begin - band.begin : 0);
      attrs.end.push_back(a == kRowAxis ? rows.end - band.begin : from_shape[a]);
      attrs.step.push_back(1);
    }
    slice.attrs = attrs;
    result_.graph.add_node(std::move(slice));
    slices_[key] = id;
    return id;
  }

  void build_graph() {
    ir::Graph& g = result_.graph;
    g.name = graph_.name + suffix_;
    g.source_path = graph_.source_path;
    for (ir::TensorId t : graph_.inputs) {
      if (bands_[static_cast<size_t>(t)].size() <= 0) continue;
      g.inputs.push_back(copy_tensor(t));
      result_.model_inputs.push_back(t);
      result_.input_rows.push_back(bands_[static_cast<size_t>(t)]);
    }
    for (int n = 0; n < head_nodes_; ++n) {
      const ir::Node& node = graph_.nodes[static_cast<size_t>(n)];
      const ir::Range out_band = bands_[static_cast<size_t>(node.outputs[0])];
      if (out_band.size() <= 0) continue;
      const ir::AxisMap map = ir::op_decl(node.op).map_axes(graph_, node);
      const std::vector<ir::Range> rows = read_rows(node);
      ir::Node copy = node;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (!graph_.has_input(node, i)) continue;
        if (graph_.input_tensor(node, i).is_constant || rows[i].size() <= 0) {
          copy.inputs[i] = copy_tensor(node.inputs[i]);
          continue;
        }
        const ir::AxisLink* link = find_row_link(map, i);
        const bool whole = link == nullptr || link->broadcast;  // reduced rows, or a broadcast row
        copy.inputs[i] = whole ? copy_tensor(node.inputs[i]) : rows_of(node.inputs[i], rows[i], node.name);
        const ir::OpDecl& decl = ir::op_decl(node.op);
        const bool row_link = link != nullptr && !link->broadcast &&
                              (link->role == ir::AxisRole::kWindow || link->role == ir::AxisRole::kIdentity);
        if (row_link && decl.set_row_padding != nullptr) {
          // Global row r of the input is row r - rows.begin of the copy: the
          // first output row's window starts at out.begin * S - P, so the
          // copy pads before by rows.begin - that (>= 0: rows is clamped to
          // the tensor), and after by what the last window reads past rows.end.
          // One to one is the window of one row (a Slice's rows from its
          // first: its end moves with the band too).
          const ir::Window w = link->role == ir::AxisRole::kWindow ? link->window : ir::Window{};
          const int64_t first = out_band.begin * w.stride - w.pad_before;
          const int64_t last = (out_band.end - 1) * w.stride + (w.kernel - 1) * w.dilation + 1 - w.pad_before;
          decl.set_row_padding(copy, rows[i].begin - first, last - rows[i].end, rows[i].size());
        }
      }
      copy.outputs[0] = copy_tensor(node.outputs[0]);
      g.add_node(std::move(copy));
    }
    for (size_t b = 0; b < result_.boundary.size(); ++b) {
      g.outputs.push_back(copy_tensor(result_.boundary[b]));
      result_.output_rows.push_back(bands_[static_cast<size_t>(result_.boundary[b])]);
    }
  }

  const ir::Graph& graph_;
  int head_nodes_;
  std::string suffix_;
  std::vector<ir::NodeId> producers_;
  std::vector<ir::Range> bands_;  // per tensor of graph_: its band (empty: not in the head)
  std::map<ir::TensorId, ir::TensorId> copies_;
  std::map<std::pair<ir::TensorId, std::pair<int64_t, int64_t>>, ir::TensorId> slices_;
  BandGraph result_;
};

}  // namespace

std::vector<ir::TensorId> find_head_boundary(const ir::Graph& graph, int head_nodes) {
  std::vector<bool> made(graph.tensors.size(), false);
  for (int n = 0; n < head_nodes; ++n) {
    for (ir::TensorId t : graph.nodes[static_cast<size_t>(n)].outputs) made[static_cast<size_t>(t)] = true;
  }
  for (ir::TensorId t : graph.inputs) made[static_cast<size_t>(t)] = true;
  std::vector<bool> crosses(graph.tensors.size(), false);
  for (size_t n = static_cast<size_t>(head_nodes); n < graph.nodes.size(); ++n) {
    for (ir::TensorId t : graph.nodes[n].inputs) {
      if (t != ir::kNoTensor && made[static_cast<size_t>(t)]) crosses[static_cast<size_t>(t)] = true;
    }
  }
  for (ir::TensorId t : graph.outputs) {
    if (made[static_cast<size_t>(t)]) crosses[static_cast<size_t>(t)] = true;
  }
  std::vector<ir::TensorId> boundary;
  for (size_t t = 0; t < crosses.size(); ++t) {
    if (crosses[t]) boundary.push_back(static_cast<ir::TensorId>(t));
  }
  return boundary;
}

Result<BandGraph> crop_rows(const ir::Graph& graph, int head_nodes, const std::vector<ir::Range>& output_rows,
                            const std::string& name_suffix) {
  return Cropper(graph, head_nodes, name_suffix).crop(output_rows);
}

Result<std::vector<ir::Range>> find_input_rows(const ir::Graph& graph, int head_nodes,
                                               const std::vector<ir::Range>& output_rows) {
  return Cropper(graph, head_nodes, "").find_input_rows(output_rows);
}

Status check_head(const ir::Graph& graph, int head_nodes, int parts) {
  return Cropper(graph, head_nodes, "").check(parts);
}

ir::Graph extract_tail(const ir::Graph& graph, int head_nodes, const std::string& name_suffix) {
  ir::Graph tail;
  tail.name = graph.name + name_suffix;
  tail.source_path = graph.source_path;
  std::map<ir::TensorId, ir::TensorId> copies;
  auto copy = [&](ir::TensorId t) {
    auto it = copies.find(t);
    if (it != copies.end()) return it->second;
    const ir::TensorId id = tail.add_tensor(graph.tensor(t));
    copies[t] = id;
    return id;
  };
  for (ir::TensorId t : find_head_boundary(graph, head_nodes)) tail.inputs.push_back(copy(t));
  for (size_t n = static_cast<size_t>(head_nodes); n < graph.nodes.size(); ++n) {
    ir::Node node = graph.nodes[n];
    for (ir::TensorId& t : node.inputs) {
      if (t != ir::kNoTensor) t = copy(t);
    }
    for (ir::TensorId& t : node.outputs) t = copy(t);
    tail.add_node(std::move(node));
  }
  for (ir::TensorId t : graph.outputs) tail.outputs.push_back(copy(t));
  return tail;
}

}  // namespace tinyfit::devices
