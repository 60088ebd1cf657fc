// recompute-boundary: the tensors a stage of bands hands on, made small
// enough for device 0 to gather whole (--partition rows,
// driver/compile_device_rows.h). A squeeze-excite block's mean over the rows
// reads every row of the block's expanded feature map, so a stage of bands
// ends before it (devices/crop_rows.h); the feature map itself is read again
// by the block's multiply after the mean, so it would cross the cut whole
// (188,160 bytes on MCUNetV2-SE-Large's 28x28x240 blocks). Instead the
// operators that make it are copied to the front of the tail and run again
// there, by bands in the next stage, from the tensors that cross the cut
// anyway (the block's input, read again by its residual add) or from smaller
// ones; the tail's readers read the copies, and the cut hands on only the
// block's input and the mean's small output.
//
// Which operators, from the graph alone: for a tensor crossing the cut that
// the head reads too (needed before the cut, crossing it because a later
// operator reads it again; a tensor only the tail reads is what the stage
// is for), its producer and then, one at a time, the producer of the largest tensor the
// set reads that does not cross the cut yet (at most kMaxRecomputed
// operators, none reading a graph input the cut does not already hand on);
// of those sets, the one whose recomputation lowers the bytes crossing the
// cut the most (fewer operators among equals). Tensors are recomputed,
// largest first, while the bytes crossing exceed the limit and some set
// lowers them.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace tinyfit::devices {

inline constexpr int kMaxRecomputed = 8;

// Requires: head_nodes in [1, nodes).
// Guarantees: the graph computes the same outputs; nodes [0, head_nodes) and
// every tensor id of `graph` are unchanged; the copies (synthesized, named
// "<node>/recompute", their outputs "<tensor>/recompute", numbered
// "/recompute2", ... when the graph holds such a name already) are nodes
// [head_nodes, head_nodes + k), k = result.nodes.size() - graph.nodes.size();
// k = 0 when the tensors crossing the cut (find_head_boundary) hold at most
// gather_bytes, or when no recomputation lowers them.
ir::Graph recompute_boundary(const ir::Graph& graph, int head_nodes, int64_t gather_bytes);

// Whether the tensors crossing the cut after head_nodes (find_head_boundary)
// hold at most gather_bytes: then recompute_boundary returns the graph
// unchanged, and a caller holding it need not copy it (weights included).
// O(nodes), no copy.
bool boundary_fits(const ir::Graph& graph, int head_nodes, int64_t gather_bytes);

}  // namespace tinyfit::devices
