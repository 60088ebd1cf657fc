// A row loop that reads a wide tensor made before it, when that tensor is also
// read after the loop, leaves it live across the loop: the loop cannot consume
// it. In NASNet and AmoebaNet a cell's output (the concat of its branches) is
// read by the next two cells, each through its own ReLU and 1x1 convolution
// (their "preprocess"): a loop over cell N's preprocess still holds the whole
// concat for cell N+1's. Running those other readers' chains in the loop,
// down to tensors no wider than the loop's sink (other sinks of as many rows,
// plan/lower_row_loop.h), makes the loop its last reader: the concat dies in
// it, and its rows can take the loop's outputs (row-loop overlaps).
//
// Heuristic, not from MOTES: the search scores the loop with and without
// these readers (motes_search.h) and keeps what is better by LessThen.
#pragma once

#include <functional>
#include <vector>

#include "analysis/buffer_graph.h"
#include "ir/graph.h"

namespace tinyfit::partition {

// What: `ops` (a row loop's operators, ascending BufferGraph indices; the
// last is its sink) and the operators after the last that read, directly or
// through each other, a wide input of the loop: a buffer made before the
// loop's first operator (or a model input), read by an operator of `ops`,
// no model output, of more bytes than the sink's output. An operator joins
// while it reads such an input or a wide tensor of an operator that joined,
// and nothing else made at or after the loop's first operator outside the
// loop; runs by rows (`runs_by_rows`); and makes one NHWC tensor of the
// sink's rows. One whose wide output no other joined operator reads would
// hand on as much as it consumed: it leaves, with what reads it.
// Requires: bg == build_buffer_graph(graph); ops ascending, non-empty.
// Guarantees: ascending, a superset of ops, convex when ops is (what joins
// reads only tensors from before the loop or of the result); ops itself when
// nothing qualifies. O(operators x inputs).
std::vector<int> add_split_input_readers(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                         const std::vector<int>& ops,
                                         const std::function<bool(const ir::Node&)>& runs_by_rows);

// What: `ops` without the operators, other than the last, that read only
// tensors made before the loop's first operator (or model inputs) and make
// fewer bytes than the widest they read. Run whole before the loop, such an
// operator frees its wide input there, where the loop would keep it to its
// end (a NAS cell's preprocess of the cell two back, whose input a loop over
// the cell does not otherwise read). The same heuristic: the search scores
// the loop with and without them.
// Requires: bg == build_buffer_graph(graph); ops ascending, non-empty.
// Guarantees: ascending, a subset of ops keeping its last; convex when ops
// is (what leaves depends on nothing of the loop). O(operators x inputs).
std::vector<int> hoist_narrowing_readers(const analysis::BufferGraph& bg, const std::vector<int>& ops);

}  // namespace tinyfit::partition
