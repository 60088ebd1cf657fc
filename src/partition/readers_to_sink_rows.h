// A row loop that hands on a tensor wider in rows than its sink keeps it
// whole (NASNet: the loop over the stem and the first two cells hands cell
// 1's output, 56 rows, to cell 3, whose factorized reduce brings it to cell
// 2's 28 rows). Running that reader's chain in the loop, down to tensors of
// the sink's rows (other sinks, plan/lower_row_loop.h), hands those on
// instead: the whole wide tensor becomes rows of a loop buffer.
//
// Heuristic, not from MOTES: the search scores the loop with and without
// these readers (motes_search.h) and keeps what is better by LessThen.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "analysis/buffer_graph.h"
#include "ir/graph.h"

namespace tinyfit::partition {

// The rows of BufferGraph operator `op`'s output when it has one output and
// that output is NHWC; -1 otherwise. What a row loop's sink walks, and what
// the readers a loop may take must match (split_input_readers.h too).
int64_t count_output_rows(const ir::Graph& graph, const analysis::BufferGraph& bg, int op);

// What: `ops` (a row loop's operators, ascending BufferGraph indices; the
// last is its sink) and the operators after the last that read, directly or
// through each other, a tensor of the loop with more rows than the sink,
// taken while each reads only tensors of the loop, of these operators or
// from before the loop's first operator, runs by rows (`runs_by_rows`),
// makes one NHWC tensor of at least the sink's rows, and (with more rows
// than the sink) is read by another of them. Operators of the sink's rows
// end the chains: the loop computes their rows chunk by chunk as its sink's.
// Requires: bg == build_buffer_graph(graph); ops ascending, non-empty.
// Guarantees: ascending, a superset of ops, convex when ops is; ops itself
// when nothing qualifies. O(operators x inputs).
std::vector<int> add_readers_to_sink_rows(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                          const std::vector<int>& ops,
                                          const std::function<bool(const ir::Node&)>& runs_by_rows);

// What: `ops` and the global pool that reads its sink's output, when that
// pool is the output's only reader, reads nothing else and runs by rows:
// ending the loop at it (accumulates_rows, partition_scheme.h), the loop
// folds its sink's rows into the pool's accumulator instead of handing the
// whole tensor on (a classifier's global average pool). Heuristic as above:
// the search scores the loop with and without it.
// Requires: as add_readers_to_sink_rows. Guarantees: ops, or ops and one
// operator after its last; convex when ops is. O(readers).
std::vector<int> add_global_pool_reader(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                        const std::vector<int>& ops,
                                        const std::function<bool(const ir::Node&)>& runs_by_rows);

}  // namespace tinyfit::partition
