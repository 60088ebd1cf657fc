// Long partitions around a bottleneck (MOTES §4.5: the sub-ACGs holding
// bottleneck tensors, merged across cells by depth): the stretches of whole
// cells that hold the producer and every reader of a bottleneck tensor.
//
// Why: in a NAS network every cell reads the two before it, so the tensors
// live at the peak (a stem output, a cell's concat) are made in one cell and
// read two cells later. A loop over one cell still hands its outputs on
// whole, so it leaves the peak where it was, and the beam (which grows a
// loop one cell at a time, scoring each step alone) drops it before it
// reaches the cell that would absorb the bottleneck. These stretches jump
// there in one move: the search scores them whole (search_motes_schemes).
//
// A span runs from the first cell of a bottleneck tensor's producer (or of
// its first reader, for a model input) to the cell of its last reader, and
// the union of all of them; each also extended by up to `extra_cells` cells
// on, so that what the loop hands on is made past the next cell boundary
// (the two tensors a NAS cell's successors read), and by one cell back.
#pragma once

#include <vector>

#include "analysis/buffer_graph.h"
#include "partition/cells.h"
#include "partition/scheme_candidates.h"

namespace tinyfit::partition {

// What: the spans above, as stretches of the given order (first operator of
// the first cell .. last operator of the last cell), each spanning at least
// two cells.
// Requires: cells from find_cells(bg); bottleneck_buffers index bg.buffers.
// Guarantees: distinct, sorted by (first, last). O(bottlenecks x readers +
// spans x extra_cells).
std::vector<Stretch> list_bottleneck_spans(const analysis::BufferGraph& bg, const std::vector<Cell>& cells,
                                           const std::vector<int>& bottleneck_buffers, int extra_cells);

}  // namespace tinyfit::partition
