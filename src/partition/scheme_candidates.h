// Where MOTES Algorithm 1 looks for partitions (line 9) and how finely it
// cuts them (GenSchemes, line 11).
//
// Sub-graphs: MOTES enumerates "all valid connected sub-graphs" of a cell's
// ACG that hold a bottleneck axis. tinyfit enumerates operator stretches of
// the given order (contiguous, hence convex) inside the cell that make or read
// a bottleneck tensor, and lets make_partition_scheme derive A and check the
// conditions. A stretch ends only where few buffers cross the order (at most
// kStretchCutCrossing: a chain link, a residual block's skip beside its main
// path, a NAS cell's end), so that what it hands on is small; it starts after
// such a position or at an operator that reads only tensors from before the
// cell (attention's query projection after its keys and values); of those ends,
// the few nearest each bottleneck operator on either side are tried (a
// cell's bounds always). The search extends a stretch across cells by merging
// it with a neighbouring scheme (search_motes_schemes).
//
// Factors: every tile that gives a different number of parts n >= 2
// (ceil(extent / tile) distinct), the last part shorter when the tile does
// not divide the extent (row kernels handle a short last tile), thinned to at
// most max_tiles spread evenly on a log scale of n, smallest tile first.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/buffer_graph.h"
#include "partition/cells.h"

namespace tinyfit::partition {

inline constexpr int kStretchCutCrossing = 2;

struct Stretch {
  int first = 0;  // operator indices of the given order, inclusive
  int last = 0;
  bool operator==(const Stretch&) const = default;
  std::vector<int> operators() const;
};

// What: the stretches of `cell` holding an operator that makes or reads one
// of `bottleneck_buffers`, each stretch ending only at positions where at
// most kStretchCutCrossing buffers cross (or the cell's bounds), at most
// `ends_per_side` ends on either side of each such operator.
// Requires: bg's given order topological; cell from find_cells(bg).
// Guarantees: distinct, sorted by (first, last) ("by depth"). O(cell x ends^2).
std::vector<Stretch> list_candidate_stretches(const analysis::BufferGraph& bg, const Cell& cell,
                                              const std::vector<int>& bottleneck_buffers, int ends_per_side);

// What: GenSchemes' tiles for an axis of `extent`: at most max_tiles tiles,
// each giving n = ceil(extent / tile) >= 2 parts, distinct n, ascending tile.
std::vector<int64_t> list_tiles(int64_t extent, int max_tiles);

}  // namespace tinyfit::partition
