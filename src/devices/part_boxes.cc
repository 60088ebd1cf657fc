#include "devices/part_boxes.h"

#include <algorithm>

namespace tinyfit::devices {

int find_split_axis(const ir::Shape& shape, Split split) {
  const int rank = static_cast<int>(shape.size());
  switch (split) {
    case Split::kWhole: return -1;
    case Split::kRows: return rank == 4 ? 1 : -1;
    case Split::kChannels: return rank >= 2 ? rank - 1 : -1;
    case Split::kLength:
      for (int a = 0; a < rank; ++a) {
        if (shape[static_cast<size_t>(a)] > 1) return a;
      }
      return -1;
  }
  return -1;
}

Box compute_part_box(const ir::Shape& shape, Split split, int part, int parts) {
  Box box = make_full_box(shape);
  const int axis = find_split_axis(shape, split);
  if (axis >= 0) box.axes[static_cast<size_t>(axis)] = split_extent(shape[static_cast<size_t>(axis)], part, parts);
  return box;
}

namespace {

// The input range output range `out` reads through one link.
ir::Range map_range(const ir::AxisLink& link, ir::Range out, int64_t input_extent) {
  if (link.broadcast) return {0, input_extent};
  switch (link.role) {
    case ir::AxisRole::kIdentity: return out;
    case ir::AxisRole::kWindow: return ir::input_range(link.window, out, input_extent);
    case ir::AxisRole::kGrouped: return {out.begin / link.factor, (out.end - 1) / link.factor + 1};
    case ir::AxisRole::kResampled:
      return {link.reads[static_cast<size_t>(out.begin)].begin, link.reads[static_cast<size_t>(out.end - 1)].end};
    case ir::AxisRole::kPermuted: return {0, input_extent};
  }
  return {0, input_extent};
}

}  // namespace

std::vector<Box> compute_input_boxes(const ir::Graph& graph, const ir::Node& node, const Box& output_box) {
  std::vector<Box> boxes(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!graph.has_input(node, i) || graph.input_tensor(node, i).is_constant) continue;
    boxes[i] = make_full_box(graph.input_tensor(node, i).shape);
  }
  if (output_box.is_empty()) return boxes;
  const ir::AxisMap map = ir::op_decl(node.op).map_axes(graph, node);
  // Several links onto one input axis (an element-wise op reading its input
  // twice) read the union of their ranges: start each from empty.
  std::vector<std::vector<bool>> touched(node.inputs.size());
  for (size_t i = 0; i < boxes.size(); ++i) touched[i].assign(boxes[i].axes.size(), false);
  for (const ir::AxisLink& link : map.links) {
    const size_t i = static_cast<size_t>(link.input_index);
    if (i >= boxes.size() || boxes[i].axes.empty()) continue;
    const size_t a = static_cast<size_t>(link.input_axis);
    const int64_t extent = graph.input_tensor(node, i).shape[a];
    const ir::Range read = map_range(link, output_box.axes[static_cast<size_t>(link.output_axis)], extent);
    ir::Range& range = boxes[i].axes[a];
    range = touched[i][a] ? ir::Range{std::min(range.begin, read.begin), std::max(range.end, read.end)} : read;
    touched[i][a] = true;
  }
  for (const ir::AxisMap::Reduced& reduced : map.reduced) {
    const size_t i = static_cast<size_t>(reduced.input_index);
    if (i >= boxes.size() || boxes[i].axes.empty()) continue;
    boxes[i].axes[static_cast<size_t>(reduced.input_axis)] =
        {0, graph.input_tensor(node, i).shape[static_cast<size_t>(reduced.input_axis)]};
  }
  return boxes;
}

}  // namespace tinyfit::devices
