// The access order of tinyfit's overlap-tolerant kernels as plain records
// (vMCU §4): what a "segment" kernel reads and writes, in which order, so
// that the distance at which its output may overlap its input can be derived
// three independent ways (segment_simulation.h replays every access,
// segment_closed_form.h gives formulas, segment_ilp.h solves vMCU eq. 1 with
// CBC) and checked against each other. Records in, offsets out: nothing here
// knows the IR graph or the Plan.
//
// The rule (vMCU §4, eq. 1): with the output starting `offset` bytes after
// the input (negative: below it), a kernel that walks its tensors in
// ascending address order is safe when every byte it writes lies below every
// input byte it reads later; one that walks them in descending order, when
// every byte it writes lies above every input byte it reads later. A write is
// "before" a read when the kernel executes it first; reads and writes of the
// same step happen in the order the kernel performs them (loads, then the
// store). The set of safe offsets is then a half-line (OverlapLimit), so the
// rule composes and a larger distance is always safe.
//
// Segments. vMCU manages memory in segments of a kernel-chosen size and pays
// a modulo per segment access in its circular pool. tinyfit's kernels need no
// modulo (docs/overlap.md: the traversal direction alternates instead), so
// the segment is the kernel's own store: a block of `output_block` output
// channels of one pixel, written once its sums are complete.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/op_decl.h"

namespace tinyfit::plan {

// The order a kernel walks its pixels and channel blocks in.
//  - kAscending: batch, rows, cols ascending; channel blocks [0, B), [B, 2B),
//    ..., the last one shorter when B does not divide the channels.
//  - kDescending: the mirror image: batch, rows, cols descending; channel
//    blocks [C - B, C), [C - 2B, C - B), ..., the shorter one [0, r) last.
// A descending kernel is an ascending one seen in a mirror (addresses
// reflected), which is how segment_closed_form.h derives its limit.
enum class Traversal { kAscending, kDescending };
std::string_view traversal_name(Traversal traversal);

enum class SegmentOp {
  // Every output channel reads every input channel of its window: Conv2D
  // (groups 1, 1x1 or KxK) and FullyConnected (a 1x1 window over batch rows,
  // or a window over the whole input when the features are (h, w, c)).
  // Per pixel and output block: read every in-bounds tap (all input
  // channels), then store the block.
  kConv2D,
  // Output channel c reads input channel c of its window: DepthwiseConv2D
  // with multiplier 1, pools. Per pixel and channel block: read the block's
  // channels of every in-bounds tap, then store the block.
  kChannelwise,
  // The fused inverted bottleneck (vMCU §5.2): expand (any Conv2D window) ->
  // depthwise -> 1x1 project [-> residual add of the block input], output
  // pixel by pixel. Before output pixel p, the expanded ("mid") pixels are
  // computed in traversal order up to the last one p's depthwise window needs
  // (up to the end of its group of positions when the expand groups them:
  // find_last_computed_mid_position), each reading its expand window of the
  // input, all channels, once per mid channel block; they live in a
  // workspace ring (segment_ring_pixels), not in the input/output pair. Then per output channel block: read the residual
  // block of the input pixel p (when residual), store the block.
  kInvertedBottleneck,
};
std::string_view segment_op_name(SegmentOp op);

// One call of a segment kernel: tensors NHWC, [batch, rows, cols, channels],
// elements of `element_bytes`; offsets are bytes from each tensor's first
// byte (dense row-major tensors).
struct SegmentKernel {
  SegmentOp op = SegmentOp::kConv2D;
  Traversal traversal = Traversal::kAscending;
  int64_t element_bytes = 1;
  int64_t batch = 1;
  int64_t in_rows = 1, in_cols = 1, in_channels = 1;
  int64_t out_rows = 1, out_cols = 1, out_channels = 1;
  // kConv2D / kChannelwise: the window from output to input rows and cols.
  // kInvertedBottleneck: the depthwise's window, from output to mid.
  ir::Window row_window, col_window;
  int64_t output_block = 1;  // output channels per store (>= 1)

  // kInvertedBottleneck only: the expand conv from input to mid, its output
  // extents, and its channel blocks (each re-reads the expand window).
  ir::Window expand_row_window, expand_col_window;
  int64_t mid_rows = 1, mid_cols = 1, mid_channels = 1;
  int64_t mid_block = 1;
  bool residual = false;  // output = input + project (same shape)

  int64_t input_bytes() const { return batch * in_rows * in_cols * in_channels * element_bytes; }
  int64_t output_bytes() const { return batch * out_rows * out_cols * out_channels * element_bytes; }
};

// The safe offsets of the output's first byte relative to the input's first
// byte: offset <= limit_bytes (ascending) or offset >= limit_bytes
// (descending). No limit: the kernel reads nothing after its first write, so
// every offset is safe.
struct OverlapLimit {
  Traversal traversal = Traversal::kAscending;
  std::optional<int64_t> limit_bytes;

  bool operator==(const OverlapLimit&) const = default;
};

bool is_safe_offset(const OverlapLimit& limit, int64_t offset_bytes);

// The safe offset, a multiple of `alignment`, whose input/output union is
// smallest: ascending, at most min(limit, 0) rounded down (the output starts
// no later than the input); descending, at least max(limit, input - output
// bytes) rounded up (the output ends no earlier than the input).
int64_t choose_overlap_offset(const SegmentKernel& kernel, const OverlapLimit& limit, int64_t alignment);

// Bytes of the union of input and output placed `offset_bytes` apart.
int64_t compute_overlap_footprint(const SegmentKernel& kernel, int64_t offset_bytes);

// The record with its addresses reflected: rows, cols and channel blocks
// mirrored and the traversal reversed (windows get the padding their far
// side uses). Its limit L' and the original's L satisfy
// L = input_bytes - output_bytes - L' (offset' = input_bytes - output_bytes - offset).
SegmentKernel mirror_segment_kernel(const SegmentKernel& kernel);

// Empty when the record is consistent (extents >= 1, windows produce the
// output extents from the input's, channel rules of its op); else the
// problem, for the callers' internal errors and the tests.
std::string check_segment_kernel(const SegmentKernel& kernel);

// The channel block of index `block` (0 = the first stored) of `channels`
// split into blocks of `block_size` in `traversal` order.
ir::Range segment_channel_block(int64_t channels, int64_t block_size, int64_t block, Traversal traversal);
int64_t count_channel_blocks(int64_t channels, int64_t block_size);

// kInvertedBottleneck: how many mids the expand computes at a time, at
// positions (g * i, ..., g * i + g - 1), the last group shorter when g does
// not divide the count (the __dsp kernel loads each expand weight once per
// group): three with a 1x1 expand, two with a window of 4 to 64 input
// elements (KH * KW * Cin: a stem convolution, both windows gathered on the
// kernel's stack), one otherwise. runtime's segment_expand_group says the same.
int64_t count_expand_group_mids(const SegmentKernel& kernel);

// kInvertedBottleneck: the last mid position (in traversal order) computed
// before an output whose depthwise window needs position `needed` last: the
// end of needed's group (count_expand_group_mids), or the last mid.
int64_t find_last_computed_mid_position(const SegmentKernel& kernel, int64_t needed);

// The in-bounds taps of a window for output index `out` over an input axis of
// `extent`: the first and last tap's input index, or an empty range when no
// tap is in bounds.
struct TapSpan {
  int64_t first = 0;  // input index of the first in-bounds tap
  int64_t last = -1;  // input index of the last in-bounds tap (< first: none)
  bool empty() const { return last < first; }
};
TapSpan find_tap_span(const ir::Window& window, int64_t out, int64_t extent);

}  // namespace tinyfit::plan
