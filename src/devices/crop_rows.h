// crop-rows: the bands of rows of a model's first operators as graphs of
// their own, one per device (issue 14: a device's share of feature-map rows,
// MemoriaNova's fmh, composed with the single-device techniques).
//
// The graph is cut after its first `head_nodes` operators (in the graph's
// order, a topological one). The head's boundary is every tensor the rest
// (the tail) reads from it, and the graph outputs it makes. A device computes
// a band of rows of every boundary tensor from a band of rows of every graph
// input: the bands of the head's tensors are the rows its consumers' windows
// read (the op declarations' axis maps, MemoriaNova eq. 1), composed back
// from the boundary bands, so the band graph recomputes the rows two
// neighbouring bands share (the halo) instead of exchanging them layer by
// layer: its MACs exceed the head's share, and the report says by how much.
//
// A band graph is an ordinary ir::Graph: each head operator is copied with
// the extents of its bands, a sliding window's padding set so that it pads
// only where its band meets the tensor's border (OpDecl::set_row_padding);
// where a consumer reads fewer rows than the band of its input holds (a
// residual Add beside a 3x3 window, a stride that skips the band's first
// row), a row Slice gives it exactly its rows. The whole single-device
// pipeline (ordering, in-place, PEX, MOTES row loops, overlap, placement,
// verification, the C emitter) then compiles it unchanged, inside that
// device's SRAM.
//
// An operator that reduces every row (a squeeze-excite block's Mean over
// the rows, its output one row) runs in a band only on an input of the
// graph: every device gets all of that input's rows and computes the
// reduction, and its consumers' one-row tensors, itself. A reduce over the
// rows of a tensor the bands make ends a stage (recompute-boundary,
// devices/recompute_boundary.h, keeps what the next stage needs small).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/graph.h"
#include "ir/op_decl.h"
#include "support/diag.h"

namespace tinyfit::devices {

// The axis of a feature map's rows (NHWC), the axis bands split.
inline constexpr int kRowAxis = 1;

// Bytes of one row of an NHWC tensor: rows [begin, end) are one contiguous
// block of (end - begin) times this.
inline int64_t row_bytes(const ir::Tensor& t) { return t.shape[2] * t.shape[3] * ir::dtype_size_bytes(t.dtype); }

// The tensors the head (nodes [0, head_nodes)) hands on: made by the head
// (or a graph input) and read by a tail node or a graph output; ascending.
std::vector<ir::TensorId> find_head_boundary(const ir::Graph& graph, int head_nodes);

// One device's band of the head.
struct BandGraph {
  ir::Graph graph;
  // Per input of `graph`: the model's input tensor and the band of its rows.
  std::vector<ir::TensorId> model_inputs;
  std::vector<ir::Range> input_rows;
  // Per output of `graph`: the boundary tensor and the band of its rows.
  std::vector<ir::TensorId> boundary;
  std::vector<ir::Range> output_rows;
};

// What: the band graph computing rows output_rows[i] of boundary[i]
// (= find_head_boundary) from the rows of the model inputs they need.
// Requires: head_nodes in [1, nodes); output_rows one non-empty band per
// boundary tensor.
// Guarantees: graph passes verify_graph, with the head's dtypes and
// quantisation. Errors (exit 2): a boundary tensor or a head tensor that is
// not NHWC with one batch, or a head operator whose rows are not a window
// (with OpDecl::set_row_padding) or one to one or a reduce over every row of
// a graph input (its message names it). Other axes may be read in part (a
// Slice of the columns): the copy keeps the operator's own attributes there.
Result<BandGraph> crop_rows(const ir::Graph& graph, int head_nodes, const std::vector<ir::Range>& output_rows,
                            const std::string& name_suffix);

// Whether crop_rows can cut after head_nodes with bands of rows: the
// boundary's tensors are NHWC tensors the head makes, each with at least
// `parts` rows, no graph output is made by the head, and every head
// operator runs by bands. The error says why not (exit 2).
Status check_head(const ir::Graph& graph, int head_nodes, int parts);

// The band of rows of every model input (graph order; empty when the head
// does not read it) that computing rows output_rows[i] of boundary[i] needs.
// Requires: as crop_rows.
Result<std::vector<ir::Range>> find_input_rows(const ir::Graph& graph, int head_nodes,
                                               const std::vector<ir::Range>& output_rows);

// The tail (nodes [head_nodes, end)) as a graph whose inputs are the
// boundary tensors, whole, in boundary order.
ir::Graph extract_tail(const ir::Graph& graph, int head_nodes, const std::string& name_suffix);

}  // namespace tinyfit::devices
