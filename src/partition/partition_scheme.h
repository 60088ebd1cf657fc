// Partition schemes (MOTES §4.3): p = (S, A, V_I, V_O, n) cuts the operators
// S of a sub-graph into n parts along A, a connected sub-graph of S's Axis
// Connecting Graph. V_I are the inputs of S that the parts read piece by piece
// (views, never Slice copies), V_O the tensors S hands to the rest of the
// graph, written piece by piece into their whole buffers (never Concat
// copies) or, when A holds their reduce axis, accumulated over the parts.
//
// MOTES states two conditions, checked by check_motes_conditions:
//   (1) every output in V_O is partitioned or reduced: it has an axis in A;
//   (2) no other node of S is partitioned along its reduce axis (a partial sum
//       cannot feed another operator).
// tinyfit adds one: every operator of S has its output (or, for an output in
// V_O, its reduce axis) on A, so no operator runs whole in every part: a
// scheme never recomputes.
//
// A scheme walks one kind of axis (PartitionAxis): the rows of NHWC tensors
// (patch-style row loops), the tokens of [.., tokens, features] tensors
// (attention and its feed-forward by query tokens: the rows of every tensor
// on A, whichever axis that is in each), or channels (PEX-style channel loops).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/buffer_graph.h"
#include "ir/graph.h"
#include "partition/acg.h"
#include "support/diag.h"

namespace tinyfit::partition {

enum class PartitionAxis { kRows, kChannels, kTokens };
std::string_view partition_axis_name(PartitionAxis axis);

struct PartitionScheme {
  PartitionAxis axis = PartitionAxis::kRows;
  std::vector<int> operators;              // S: BufferGraph operator indices, ascending
  std::vector<int> acg_vertices;           // A: ascending
  std::vector<ir::TensorId> split_inputs;  // V_I: ascending
  std::vector<ir::TensorId> outputs;       // V_O: ascending
  int64_t extent = 0;  // length of the axis the parts cut (rows, tokens: of the last operator's output)
  int64_t tile = 0;    // elements of it per part; the last part may be shorter

  int64_t count_parts() const { return tile > 0 ? (extent + tile - 1) / tile : 0; }  // n
  bool operator==(const PartitionScheme&) const = default;
};

// Whether a row scheme may end at `node` by accumulating it: a global pool
// (ir::OpDecl::folds_windows; one window over every row and col of its NHWC
// input, no padding, one output pixel) of int8 or uint8 elements, the pools
// the runtime runs band by band (tinyfit/pool.h *_accumulate, *_finalize).
// Such a scheme walks the rows of the node's input: each part folds its rows
// into an accumulator, and the output is finished after the last part
// (plan/lower_row_loop.h).
bool accumulates_rows(const ir::Graph& graph, const ir::Node& node);

// Whether a row loop over `ops` (BufferGraph operators in order, the last its
// sink) ends at a pool it accumulates: at least two operators, the last
// accumulates_rows. The loop then walks the rows of that pool's input.
bool ends_in_accumulated_pool(const ir::Graph& graph, const analysis::BufferGraph& bg, const std::vector<int>& ops);

// The ACG vertices a set of operators can cut: every axis of the tensors they
// read or write (aliases included: a Reshape between two of them), and their
// reduce axes. Indexed by vertex.
std::vector<bool> select_subgraph_vertices(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                           const AxisConnectingGraph& acg, const std::vector<int>& operators);

// What: the scheme that cuts `operators` along `axis`, with A the component
// of their sub-ACG that holds the output axis of the first operator, V_I and
// V_O derived from the graph, and `tile` elements per part (clamped to the
// extent).
// Requires: acg == build_acg(graph); bg == build_buffer_graph(graph);
// operators ascending, non-empty, and convex (no path leaves the set and
// comes back); tile >= 1.
// Guarantees: an error (kInternal, a one-line reason) when the operators do
// not all lie on one such component, or check_motes_conditions fails; the
// search treats that as "not a candidate". O(vertices + edges).
Result<PartitionScheme> make_partition_scheme(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                              const AxisConnectingGraph& acg, std::vector<int> operators,
                                              PartitionAxis axis, int64_t tile);

// MOTES's conditions (1) and (2), and no operator of S off A. Errors name the
// tensor or node that breaks them.
Status check_motes_conditions(const ir::Graph& graph, const analysis::BufferGraph& bg,
                              const AxisConnectingGraph& acg, const PartitionScheme& scheme);

// "rows x7 over conv1..block2/project (5 operators)" for notes and dumps.
std::string describe_scheme(const analysis::BufferGraph& bg, const PartitionScheme& scheme);

}  // namespace tinyfit::partition
