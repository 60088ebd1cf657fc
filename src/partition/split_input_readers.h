// A row loop that reads a wide tensor made before it, or makes one, leaves it
// live past the loop when something after the loop reads it too: the loop
// cannot consume it. In NASNet a cell's output (the concat of its branches)
// is read by the next two cells, each through a ReLU and a 1x1 convolution
// (their preprocessing): a loop over cell N's preprocessing still held the
// whole concat for cell N+1's, and a loop over cell N's branches handed its
// concat on whole. Running those other readers' chains in the loop, down to
// narrower tensors (other sinks of as many rows, plan/lower_row_loop.h),
// makes the loop the wide tensor's last reader: it dies in the loop (or is
// never whole), and its rows can take the loop's outputs (row-loop
// overlaps).
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
// through each other, a tensor the loop could consume: one it reads that is
// made before its first operator (or a model input), or one it makes; no
// model output. An operator joins when it reads such a tensor or a wide
// output of an operator that joined, reads nothing else made at or after
// the loop's first operator outside the loop, runs by rows (`runs_by_rows`)
// and makes one NHWC tensor of the sink's rows. An output is wide when it
// has at least the bytes of the widest consumable tensor its operator
// descends from: a joined operator whose wide output no other joined
// operator reads would hand on as much as it consumed, so it leaves, with
// what reads it; a narrower output ends a chain (another sink, handed on).
// Requires: bg == build_buffer_graph(graph); ops ascending, non-empty.
// Guarantees: ascending, a superset of ops, convex when ops is (what joins
// reads only tensors from before the loop, of the loop or of what joined);
// ops itself when nothing qualifies. O(operators x inputs).
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
