// What the latency model knows about one runtime kernel call: a few counts of
// the work its loops do, computed from the call's geometry alone (the view it
// writes, the view it reads, the node's sliding windows from its op
// declaration). The table (cost_table.h) fits, per kernel, instructions as a
// non-negative combination of these counts, so a count a kernel does not
// depend on gets weight 0, and a new kernel needs no new code here.
//
// Why these counts: a kernel's instructions are sums, over its loop nests, of
// trip counts times the loop body's length. The direct kernels loop over
// output rows, pixels and elements, then over the in-bounds taps of a window,
// then over the channels of a tap (the "work", MACs for a convolution); a
// kernel that runs padding taps as zeros (im2col) pays the padded work too;
// one that recomputes sums at clipped borders pays border work. The im2col
// kernels (tinyfit/kernel_templates/conv2d_im2col_dsp.h) gather three
// pixels' patches, zeros for padding taps, then step through them four taps
// at a time for two output channels at once; the dot-product kernels
// (dot_dsp.h: 1x1 and fully connected) take one pixel, two channels, four
// inputs at a time and the inputs left over one by one. Kernels
// block output channels by four (or two: SIMD pairs; sixteen accumulators
// in the depthwise kernels), so loop overheads are per block and the channels left over run a slower path; and an operator
// whose output quantization differs from its input's rescales every element
// (a pool that keeps them copies).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/op_decl.h"

namespace tinyfit::cost {

enum class Feature : int {
  kCalls = 0,       // 1 per call: argument set-up, the kernel's prologue
  kLoopCalls,       // 1 per call made inside a loop: its views' chunk arithmetic
  kRows,            // N x H of the written view (row loops)
  kPixels,          // N x H x W of the written view
  kElements,        // elements of the written view
  kReadElements,    // elements of the first view read
  kChannelBlocks,   // pixels x channel blocks (C / 4 blocks of four, then C % 4 single channels)
  kTaps,            // sum over pixels of the window taps in bounds
  kTapRowBlocks,    // sum over pixels of the window rows in bounds, x channel blocks
  kTapBlocks,       // sum over pixels of the window taps in bounds, x channel blocks
  kWideBlocks,      // pixels x ceil(C / 16): a depthwise kernel's accumulator blocks
  kTapWideBlocks,   // sum over pixels of the window taps in bounds, x ceil(C / 16)
  kTapVisits,       // sum over written elements of their in-bounds window taps
  kPatchWork,       // sum over written pixels of in-bounds taps x work per tap (an im2col patch)
  kInboundWork,     // sum over written elements of in-bounds taps x work per tap (MACs done)
  kPaddedWork,      // the same over out-of-bounds taps (MACs a padding-blind kernel does)
  kBorderTapVisits, // kTapVisits of the elements whose window the border clips
  kBorderWork,      // kInboundWork of those elements
  kTailWork,        // kInboundWork of the channels left over after blocks of four
  kRescaledElements,  // written elements whose quantization differs from the input's
  kGemmSteps,       // ceil(pixels / 3) x ceil(C / 2) x ceil(work per element / 4): an im2col GEMM's steps
  kPaddedPatch,     // sum over written pixels of out-of-bounds taps x work per tap (an im2col patch's zeros)
  kPairs,           // pixels x ceil(C / 2): a dot-product kernel's pairs of output channels
  kPairSteps,       // kPairs x floor(work per element / 4): its steps of four inputs
  kPairTail,        // kPairs x (work per element mod 4): its inputs left over, one at a time
  // The stages of a fused inverted bottleneck call (compute_fused_call_features;
  // 0 for every other call): its stages' multiply-accumulates cost differently
  // (with 16-bit SIMD a depthwise MAC about 4x a pointwise one), so each stage
  // has its own counts.
  kMidPixels,          // expanded pixels computed (each once, into the ring)
  kExpandWork,         // the expand's in-bounds MACs
  kExpandElements,     // expanded elements (requantised and stored into the ring)
  kDepthwiseWork,      // the depthwise's in-bounds MACs
  kDepthwiseTaps,      // sum over output pixels of the depthwise window's in-bounds taps
  kDepthwiseElements,  // depthwise elements (one workspace pixel per output pixel)
  kProjectWork,        // the projection's MACs
  kProjectElements,    // projected elements (the call's output)
  kResidualElements,   // elements of the residual add (0 without one)
  // The SIMD depthwise kernels' two paths (dwconv2d_dsp.h): output channels
  // in aligned groups of four (the written range's multiples of four) run
  // interior pixels (every tap in bounds) a row's run at a time per group,
  // unrolled for 3x3 and two taps a step otherwise, and border pixels one
  // pixel at a time over their in-bounds taps; the channels outside the
  // aligned groups run one at a time. Their per-tap, per-tap-row and
  // per-pixel costs differ by path and by window, so each path has its counts
  // ("groups": x the aligned groups of four of the written channels). An
  // interior 3x3 window is unrolled; larger ones loop over rows, two taps a
  // step, so only those count rows and steps.
  kInteriorPixelGroups,   // interior pixels x groups (a group's bias, requantisation and store)
  kInteriorTapGroups,     // interior pixels x window taps x groups
  kInteriorTapRowGroups,  // interior pixels x window rows x groups, windows looped over (all but 3x3)
  kInteriorTapStepGroups, // interior pixels x window rows x ceil(cols / 2) x groups, the same windows
  kInteriorRunGroups,     // rows with interior pixels x groups (a run's set-up)
  kBorderPixels,          // pixels whose window the border clips (their tap ranges)
  kBorderPixelGroups,     // those pixels x groups
  kBorderTapGroups,       // their in-bounds taps x groups
  kBorderTapRowGroups,    // their in-bounds window rows x groups
  kUngroupedElements,     // written elements of the channels outside the aligned groups (all of
                          // them when output channel i reads input channel i / multiplier)
  kUngroupedTaps,         // in-bounds taps x those channels
  // The im2col GEMM's pixel groups (conv2d_im2col_dsp.h): three pixels at a
  // time, the last group padded with repeats of its first pixel, each gathers
  // three columns of K = taps x channels per tap, rounded up to words of four
  // lanes (a tap's channels not a multiple of four go through a staging row
  // element by element first), then each channel pair of the call runs its
  // steps and requantises six values.
  kGemmGroups,            // ceil(pixels / 3)
  kGemmPairGroups,        // ceil(pixels / 3) x the channel pairs the call runs
  kGatherWords,           // 3 x ceil(pixels / 3) x ceil(K / 4)
  kStagedElements,        // 3 x ceil(pixels / 3) x K, when a tap's channels are not a multiple of four
  // The window kernel's two paths (conv2d_window_dsp.h): a call with an odd
  // number of output channels runs the channel outside the pairs along each
  // row's interior run (every tap of the window's columns in bounds, at
  // least two pixels) and down each other column's run of rows whose window
  // rows are all in bounds, two pixels at a time, each weight widened once
  // for both; every other (pixel, channel pair) runs pixel by pixel. A
  // one-channel call (partial execution's narrowest chunks) is mostly the
  // first path, a two-channel call all the second, at different costs per
  // pixel, so each path has its counts ("odd runs": the first path; 0 for a
  // call with an even number of channels or without two windowed axes).
  kOddRunPairs,           // pixel pairs of the odd runs (a pair's bias, requantisation and stores)
  kOddRunTapRows,         // those pairs x their in-bounds window rows (a row's loop step)
  kOddRunWork,            // those pairs x their in-bounds taps x work per tap (one pixel's MACs)
  kPixelPairSlots,        // pixels x ceil(C / 2) less the odd runs' pixels: the pixel-by-pixel path's
                          // iterations
  kPixelPairWork,         // kInboundWork less the odd runs' MACs: that path's MACs
  // A plan copy's two paths (tf_x8_copy: no node, so none of the counts
  // above but the written view's): when both views are dense it moves its
  // bytes sixteen a step; otherwise it copies pixel by pixel, a memcpy each.
  // Counted in bytes, not elements: a float copy moves four per element. A
  // row loop's copies move a few kept rows per iteration, so their cost is
  // a few instructions per call plus these, where the written view's rows
  // and channel blocks (what a kernel's loops step through) do not apply.
  kCopyBytes,             // bytes the copy moves (0 for a call that computes a node)
  kStridedCopyPixels,     // pixels of a copy whose views are not both dense (one memcpy each)
  // The im2col kernels' dense pointwise path (conv2d_im2col_dsp.h): a 1x1
  // convolution, stride 1, no padding, one group, input channels a multiple
  // of four, both views' pixels evenly spaced (whole maps and row chunks)
  // widens each pixel's channels straight into its column, with none of the
  // general path's window coordinates per pixel. MOTES's row loops run most
  // pointwise convolutions this way, a call per row.
  kPointwiseGroups,       // kGemmGroups of a call that takes that path (0 otherwise)
  // The im2col GEMM's dot products (conv2d_im2col_dsp.h im2col_pairs): per
  // group of three pixels, one dot product of ceil(K / 4) words per channel
  // pair of the call and one per channel whose partner is outside its range
  // (partial execution's odd chunks: im2col_lone_channel, out of line, three
  // values requantised one by one), the words two a loop step after a single
  // one when their count is odd. These, not the dot-product kernels' per-pixel
  // pairs (kPairs .. kPairTail), are the GEMM's loops (feature_mask.h).
  kGemmDotSteps,          // kGemmPairGroups x ceil(K / 4): the words the dot products step through
  kGemmOddDots,           // kGemmPairGroups when ceil(K / 4) is odd (the single word before the loop)
  kGemmLoneGroups,        // ceil(pixels / 3) x the channels of the range whose pair partner is outside it
  // The window kernel's third path (conv2d_window_dsp.h window_dsp_channel9):
  // a one-channel call whose window rows are nine contiguous elements (3x3
  // over three input channels, or 1x9 over one), at most three of them,
  // pixels 3 or 6 elements apart, runs each output row's interior (at least
  // four pixels) four pixels at a time, the last four overlapping the ones
  // before: PEX's one-channel chunks of an RGB stem. Those pixels are then
  // none of the odd runs' (kOddRunPairs .. kOddRunWork are 0) and the
  // pixel-by-pixel path runs only the border pixels.
  kQuadRows,              // output rows of such a call (a row's tap range and bias)
  kQuadSteps,             // those rows x ceil(interior pixels / 4): four requantised, stored pixels
  kQuadStepRows,          // those steps x their in-bounds window rows (a row's two weight words, four pixels)
  // Written elements whose fused activation clamps inside the element type's
  // range (ReLU6 at most output scales): the SIMD kernels then clamp each value
  // with two compares, where a clamp to the whole range is one saturation.
  kClampedElements,
  // The planar depthwise kernel (dwconv2d_planar_dsp.h; a DepthwiseConv2D of
  // multiplier 1, 3x3, stride 1, dilation 1, 0 for every other call), which
  // shares none of dwconv2d_dsp.h's loops: per group of four written channels
  // (from the range's first; the last may be short) it widens the window's
  // input rows into channel planes, a row once (out rows + 2 of them, padding
  // rows zeroed), then per channel and output row sums pairs of pixels and
  // stores the row. A group of four widens its rows' interior words (two
  // columns, both in the input) four channels a step; every other word, and
  // every word of a short group, lane by lane.
  kPlanarFillRows,        // groups x rows widened (a row's fill call)
  kPlanarFillSteps,       // full groups x rows widened in the input x interior words (four channels a step)
  kPlanarLaneWords,       // words widened lane by lane, x the channels they hold
  kPlanarChannelRows,     // channels x output rows (a row's weights, sum and store calls)
  kPlanarPairs,           // channels x output rows x ceil(output cols / 2): the pair sums
  // The im2col GEMM's two paths for a call off the dense pointwise path
  // (conv2d_im2col_dsp.h im2col_run): an ungrouped convolution, not dilated
  // along the row, of a whole, chunk or row call (not accumulate) runs the
  // pixels whose windows lie wholly in the input image by image as runs,
  // three a group, each window's rows widened straight into the columns
  // (a 3x3 window over three channels as seven words); every other pixel is
  // gathered one by one, three a group (per group of the convolution), with
  // its tap ranges, window row by window row, padding filled, through a
  // staging row when a tap's channels are not a multiple of four. The
  // dense pointwise path counts none of these.
  kGemmRunGroups,         // groups of three of the runs' pixels (per image)
  kGemmGatheredGroups,    // groups of three of the pixels gathered one by one, x the convolution's groups
  kGemmGatheredRows,      // those groups x 3 x window rows
  kGemmStagedElements,    // elements copied through the staging row: 3 x K a group that stages
};
inline constexpr int kFeatureCount = 73;

using FeatureVector = std::array<double, kFeatureCount>;

// "calls", "loop_calls", "rows", ... (the JSON names).
std::string_view feature_name(Feature feature);
inline double& at(FeatureVector& v, Feature f) { return v[static_cast<size_t>(f)]; }
inline double at(const FeatureVector& v, Feature f) { return v[static_cast<size_t>(f)]; }

// One runtime call as the plan makes it.
struct CallGeometry {
  const ir::Graph* graph = nullptr;
  const ir::Node* node = nullptr;  // nullptr: a copy that computes no node
  // Per axis of the written view, the range of the node's output it covers
  // (a whole view: [0, extent); a row chunk: the chunk's rows). Empty when the
  // call writes no view.
  std::vector<ir::Range> written;
  int64_t read_elements = 0;
  // The share of the node's declared work per output element this call does:
  // 1 for a whole, chunk or row call; the input-channel chunk over all input
  // channels for an accumulate call; 0 for a finalize or a copy.
  double work_share = 1.0;
  bool in_loop = false;
  // A copy (node nullptr): the bytes of an element, and whether both views
  // are dense (elements back to back: tf_x8_copy's fast path).
  int64_t element_bytes = 1;
  bool dense_copy = true;
  // Whether the pixels of the views it reads and writes are evenly spaced
  // (rows of pixels back to back, images of rows): the im2col kernels' test
  // for their dense pointwise path.
  bool even_pixels = true;
};

// Requires: graph and node (when set) valid; `written` of the node output's
// rank when the node has windows.
FeatureVector compute_call_features(const CallGeometry& call);

// The call that writes the whole output of `node` from its whole input 0.
CallGeometry describe_whole_call(const ir::Graph& graph, const ir::Node& node);

// A fused call (plan::KernelCall::fused: the segment kernel of an inverted
// bottleneck, expand -> depthwise -> project [-> residual Add]) does each of
// its nodes' work whole (declared overlaps are never inside a loop): the sum
// of its nodes' features as whole calls (what the portable kernel's row was
// fitted on), plus the per-stage counts kMidPixels .. kResidualElements.
// Requires: `nodes` the call's node then its fused nodes, each of `graph`.
FeatureVector compute_fused_call_features(const ir::Graph& graph, const std::vector<const ir::Node*>& nodes);

}  // namespace tinyfit::cost
