// Operator semantics as data (DESIGN.md, "Op semantics are data"). Every pass
// that needs to know what an operator does asks its OpDecl; a switch on OpType
// in a pass is a review flag.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::ir {

// PEX Definition 3. Channel-wise (C): output channel c needs only input channel
// c (depthwise conv, pooling, element-wise). Aggregating (A): every output channel
// needs all input channels (conv, fully connected). Other: neither, so partial
// execution cannot run through it (softmax over channels, concat, transpose, ...).
enum class OpKind { kChannelwise, kAggregating, kOther };

// The sliding window that maps an output index range to the input range it
// reads (MemoriaNova eq. 1, with dilation): for output [begin, end),
// input [begin*stride - pad_before, (end-1)*stride + (kernel-1)*dilation + 1 - pad_before).
struct Window {
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_before = 0;

  bool is_identity() const { return kernel == 1 && stride == 1 && pad_before == 0; }
};

// Half-open index range.
struct Range {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t size() const { return end - begin; }
  bool operator==(const Range&) const = default;
};

// Input range read for an output range, clamped to [0, input_extent).
Range input_range(const Window& window, Range output, int64_t input_extent);

enum class AxisRole {
  kIdentity,   // output index i reads input index i (or index 0 when broadcast)
  kWindow,     // output range maps to input range through `window`
  kGrouped,    // output index i reads input index i / factor (depthwise multiplier)
  // Output index i reads input index (i % factor) * (extent / factor) + i /
  // factor: a permutation (channel shuffle). Partial execution treats the
  // operator as a boundary (OpKind::kOther): a chunk of output channels reads
  // input channels spread over the whole axis, so no chunk maps to a chunk.
  kPermuted,
  // Output index i reads input indices [reads[i].begin, reads[i].end), with
  // reads non-decreasing (Resize): an output range [b, e) reads
  // [reads[b].begin, reads[e - 1].end).
  kResampled,
};

// One output axis, traced to the axis of one input it reads.
struct AxisLink {
  int output_axis = 0;
  int input_index = 0;  // which node input
  int input_axis = 0;
  AxisRole role = AxisRole::kIdentity;
  Window window;        // kWindow only
  int64_t factor = 1;   // kGrouped, kPermuted only
  bool broadcast = false;  // the input axis has extent 1 and is repeated
  std::vector<Range> reads = {};  // kResampled only: one per output index
};

// For every output axis, the links to the input axes it reads (none for an
// axis the operator generates, such as a convolution's output channels), and
// the input axes that are summed over or otherwise reduced entirely.
struct AxisMap {
  std::vector<AxisLink> links;
  struct Reduced {
    int input_index = 0;
    int input_axis = 0;
  };
  std::vector<Reduced> reduced;
};

// Whether the output may be written over an input that dies at this operator
// (TinyEngine-style in-place execution).
enum class InplaceRule {
  kNever,
  kElementwise,  // same shape and element size as input 0: overwrite as you go
  kLineBuffer,   // depthwise conv: safe with a workspace of a few rows
  // Data movement copying element by element front to back (Slice): the
  // output may be written over its input from the input's first byte when
  // every element lands at least one copied run below where it is read from
  // (plan/write_rows_in_place.h checks it per loop iteration). Not offered
  // to whole-tensor in-place execution.
  kForwardCopy,
};

struct OpDecl {
  std::string_view name;
  // Validates arity, dtypes and attributes against the input shapes, and
  // returns the output shapes. Errors name the problem; the caller adds the
  // node and file.
  Result<std::vector<Shape>> (*infer_shapes)(const Graph& graph, const Node& node);
  // Multiply-accumulates (or element operations for non-MAC operators: one per
  // output element for element-wise ops, zero for aliases and data movement).
  int64_t (*count_macs)(const Graph& graph, const Node& node);
  OpKind (*kind)(const Graph& graph, const Node& node);
  AxisMap (*map_axes)(const Graph& graph, const Node& node);
  InplaceRule inplace = InplaceRule::kNever;
  // Reshape-like: the output is the input's bytes reinterpreted (no copy, no
  // memory of its own).
  bool is_alias = false;
  // Accepts a FusedActivation (a clamp applied to its output before it is
  // stored), so import can fuse a following Relu / Relu6 / Clip into it.
  bool fuses_activation = false;
  // Operators whose rows are a sliding window (AxisRole::kWindow on the
  // rows): sets the padding of the rows (before, after; negative: rows of the
  // input skipped), so that a copy of the node computing a band of its output
  // rows from `input_rows` rows of its input pads only where the band meets
  // the tensor's border (devices/crop_rows.h): the copy's first window starts
  // `before` rows above its input and its last ends `after` rows below it.
  // Null: the rows are not a window, or no such copy is built for the
  // operator.
  void (*set_row_padding)(Node& node, int64_t before, int64_t after, int64_t input_rows) = nullptr;
  // A window's result is a fold of its taps (a sum, a maximum) finished once:
  // the taps may be folded in any grouping, so a window over every row can be
  // accumulated band by band (a row loop ending at a global pool,
  // partition/partition_scheme.h accumulates_rows).
  bool folds_windows = false;
};

const OpDecl& op_decl(OpType op);

// Runs infer_shapes over every node in order, filling output shapes that are
// unknown (empty with rank 0 allowed only for scalars) and rejecting a declared
// shape that disagrees. Errors carry the node name and op.
Status infer_graph_shapes(Graph& graph);

// Total MACs of the graph.
int64_t count_graph_macs(const Graph& graph);

}  // namespace tinyfit::ir
