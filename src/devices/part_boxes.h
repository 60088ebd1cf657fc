// The boxes of a split operator's parts, from its op declaration only: the
// part of the output each device computes, and the box of every input that
// part reads (the declaration's axis map: identity axes read the same range,
// windows read MemoriaNova eq. 1's range, grouped and resampled axes what
// they map to, reduced and unmapped axes everything).
#pragma once

#include <vector>

#include "devices/device_plan.h"
#include "ir/graph.h"

namespace tinyfit::devices {

// The axis a split walks on `shape`: kRows axis 1 (NHWC rows), kChannels the
// last axis, kLength the outermost axis with an extent above 1; -1 for kWhole
// or when the shape has no such axis.
int find_split_axis(const ir::Shape& shape, Split split);

// The box of output 0 that part `part` of `parts` computes (split_extent on
// the split axis, every other axis whole; kWhole: the whole tensor).
Box compute_part_box(const ir::Shape& shape, Split split, int part, int parts);

// One box per node input (empty for a constant or absent input): what
// computing `output_box` of output 0 reads.
// Requires: node's outputs all share output_box's rank when it is not whole.
std::vector<Box> compute_input_boxes(const ir::Graph& graph, const ir::Node& node, const Box& output_box);

}  // namespace tinyfit::devices
