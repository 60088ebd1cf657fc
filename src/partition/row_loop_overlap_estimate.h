// What a row loop's output may share with an input it consumes, known from
// the scheme's geometry before any plan exists: the search (motes_search.h)
// scores states with it, so it finds the states that only the row-loop
// overlap of the lowering (plan/lower_row_loop_overlap.h) makes small.
//
// The limit is the lowering's L, computed on the geometry's iterations:
// number the operators of the loop in body order (iteration i, operator p:
// t = i * |body| + p); the producer of `output` writes rows [.., end_out(i)),
// each reader of `input` reads the rows its window needs for its own rows of
// the iteration, from rs_t; then
//     L = min over writes t of ( min over reads t' >= t of rs_t' * input_row_bytes )
//         - end_out(t) * output_row_bytes.
// An estimate, not the lowered loop's limit: the lowering may walk a skewed
// row space (a sink behind an unpadded window) and reads the rows its views'
// bounds give, so its limit can differ either way (measured on the 800
// int8/f32 random chains of row_loop_overlap_execution_test's generator: 27
// declared overlaps the estimate missed, 21 pairs with another limit, the
// rest equal). It only scores
// states: the lowering declares what compute_row_loop_overlap_limit allows,
// and verify_plan replays it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/buffer_graph.h"
#include "ir/graph.h"
#include "partition/partition_scheme.h"
#include "partition/row_geometry.h"

namespace tinyfit::partition {

struct RowLoopOverlapPair {
  int input_buffer = -1;   // a buffer of bg the loop reads whole, by rows
  int output_buffer = -1;  // a buffer of bg the loop hands on whole
  int64_t limit_bytes = 0;   // L
  int64_t shared_bytes = 0;  // shared at the lowering's offset min(0, L rounded down to the alignment)
};

// What: every (input, output) pair of a row scheme's loop that the lowering
// could declare (the input read through the rows of a batch-1 NHWC tensor
// by every reader, the output one the loop hands on whole) and whose limit
// exists (some write comes before a read), sharing bytes; most shared bytes
// first, ties by (input, output). Empty for a token scheme. Whether the input
// dies at the loop is the caller's to check (it depends on the order).
// Requires: geometry == compute_row_geometry(graph, bg, scheme); alignment >= 1.
// Guarantees: deterministic. O(pairs x iterations x operators).
std::vector<RowLoopOverlapPair> estimate_row_loop_overlaps(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                                           const PartitionScheme& scheme, const RowGeometry& geometry,
                                                           int64_t alignment);

}  // namespace tinyfit::partition
