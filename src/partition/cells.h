// Cells (MOTES §4.5, Insight 2): the sub-graphs in which the partition search
// looks for a scheme, because memory bottlenecks concentrate inside them.
// MOTES takes them from the network's definition (NAS cells, inverted
// bottlenecks); tinyfit finds them from the graph's structure, in the given
// order:
//   - a cell ends at every sequential cut (schedule/sequential_cuts.h: an
//     operator every order runs at the same position, such as a residual Add);
//   - a long stretch without cuts (a NAS network: every cell reads the two
//     before it) also ends where at most two tensors cross the position and
//     the cell has at least kMinCrossingCellOperators operators (the end of a
//     NAS cell, where only h[i] and h[i-1] live on);
//   - consecutive one-operator cells (a plain chain of layers, and a residual
//     block: its skip edge leaves every operator a cut) merge into one cell
//     until an output forks, where a residual's skip starts: MobileNetV2's
//     cells run from one block output read twice to the next.
// Heuristic, not a definition from the paper: it finds the NAS cells and the
// MobileNet blocks of the zoo, and any partition of the order into cells is
// valid for the search (cells only bound where it looks).
#pragma once

#include <vector>

#include "analysis/buffer_graph.h"

namespace tinyfit::partition {

inline constexpr int kMinCrossingCellOperators = 8;

struct Cell {
  std::vector<int> operators;  // BufferGraph operator indices, ascending (given order)
};

// Per position p of the given order, how many buffers cross it: made at or
// before p (model inputs: before 0) and read after p or kept as model
// outputs. O(operators + buffers).
std::vector<int> count_crossing_buffers(const analysis::BufferGraph& bg);

// What: the cells of the graph, covering every operator once, in given order.
// Requires: bg from build_buffer_graph (given order topological).
// Guarantees: each cell is a contiguous range of the given order. O(operators +
// buffers log buffers).
std::vector<Cell> find_cells(const analysis::BufferGraph& bg);

}  // namespace tinyfit::partition
