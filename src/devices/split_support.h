// Which parts of an operator the runtime kernels compute (the kernels'
// capabilities, as exec::serves_output_rows, not operator semantics):
//   - the window kernels (Conv2D without groups, DepthwiseConv2D, MaxPool,
//     AveragePool) compute any box of rows and channels from the views'
//     origins: cout and fmh;
//   - FullyConnected computes a chunk of output channels: cout;
//   - element-wise kernels compute any box from the same box of their inputs,
//     when every input is an activation of the output's shape (a constant or
//     a broadcast input would be indexed from the part's origin): cout, fmh,
//     len.
// Every operator runs whole. A split also needs an axis with more elements
// than parts.
#pragma once

#include "devices/device_plan.h"
#include "ir/graph.h"

namespace tinyfit::devices {

bool serves_split(const ir::Graph& graph, const ir::Node& node, Split split, int parts);

// The window kernels (first case above): they read ranges from view origins.
bool reads_view_origins(const ir::Node& node);

}  // namespace tinyfit::devices
