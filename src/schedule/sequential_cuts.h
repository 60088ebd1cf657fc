// Sequential cuts: operators that every topological order runs at the same
// position, because every other operator is either an ancestor or a descendant
// of them (a chain of dominators that are also post-dominators). The ops between
// two cuts form a segment; every order is "segment 0, segment 1, ...", and the
// peak of an order is the maximum of the segments' own peaks, so segments can be
// ordered independently (this is what makes the exact search scale to networks
// built from cells joined by single tensors: NASNet, DARTS, RandWire, chains).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/buffer_graph.h"
#include "schedule/order_result.h"

namespace tinyfit::schedule {

struct SequentialSegments {
  // Per segment, its operators (global indices) in the given order. Each
  // segment ends with its cut operator, except possibly the last one.
  std::vector<std::vector<int>> ops;
  std::vector<int> segment_of_op;    // per operator
  std::vector<int> local_index;      // per operator: its index inside its segment
  // Per segment, the buffers its operators read or write (ascending), plus the
  // consumer-less model inputs in segment 0 (live at step 0 only).
  std::vector<std::vector<int>> buffers;
  // Per segment, bytes of buffers live through the whole segment that none of
  // its operators touch (a skip tensor jumping over it, an early model output).
  std::vector<int64_t> background_bytes;
};

// What: finds the sequential cuts and splits the operators between them.
// Requires: the given order 0..n-1 is topological (verify_graph).
// Guarantees: segments partition the operators, follow each other in every
// topological order, and no operator inside a segment (other than its last) is
// itself a cut. O(operators + buffers + edges).
SequentialSegments split_at_sequential_cuts(const analysis::BufferGraph& bg);

// What: the BufferGraph of one segment on its own: buffers produced earlier
// become segment inputs (producer -1), buffers still needed after the segment
// become segment outputs, and the background is one always-live input/output.
// Guarantees: for every topological order O of the whole graph, the peak of O is
// the maximum over segments s of the peak of O_s on
// extract_segment_graph(bg, segs, s), where O_s =
// split_order_by_segment(segs, O)[s]. O(size of the segment).
analysis::BufferGraph extract_segment_graph(const analysis::BufferGraph& bg, const SequentialSegments& segs,
                                            int segment);

// Per segment, its operators in the order they appear in `order`, as local
// indices (the restriction of a whole-graph order). O(operators).
std::vector<Order> split_order_by_segment(const SequentialSegments& segs, const Order& order);

// Appends a local order of `segment` to `order` as global operator indices.
void append_segment_order(const SequentialSegments& segs, int segment, const Order& local, Order& order);

}  // namespace tinyfit::schedule
