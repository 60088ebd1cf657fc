// The primitives a conv-family call (Conv2D, DepthwiseConv2D, FullyConnected)
// can run as, what each needs and serves, and the rule that picks one.
//
// A primitive is an algorithm of runtime/include/tinyfit/conv.h, one kernel
// per call mode and dtype: the portable direct loops (every mode, no
// workspace), and the __dsp kernels (16-bit SIMD of the Cortex-M DSP
// extension, portable C on the host): depthwise with multiplier 1; Conv2D as
// partial im2col + GEMM (a workspace of four im2col columns); depthwise 3x3
// through channel planes (a workspace of the window's rows); 1x1 Conv2D and
// FullyConnected straight from the int8 input (no workspace); and for
// float32 Conv2D, partial im2col + GEMM and Winograd F(2x2, 3x3) (3x3,
// stride 1), each with a workspace.
//
// The rule is one function, choose_conv_primitive, to be replaced by the
// primitive selection of issue 13 §4 (an ILP over measured costs and
// workspaces): today it takes the fastest primitive, by the measured order
// below, that serves the call and whose workspace the plan gave it.
#pragma once

#include <cstdint>
#include <string_view>

#include "ir/op_decl.h"
#include "plan/plan.h"

namespace tinyfit::exec {

enum class ConvPrimitive {
  kDirect,             // tf_*_{conv2d,dwconv2d,fully_connected}_direct*: every mode
  kDepthwiseDsp,       // tf_*_dwconv2d_direct*__dsp: multiplier 1; whole, chunk, rows, in place
  kDepthwisePlanarDsp, // tf_*_dwconv2d_planar__dsp: multiplier 1, 3x3, stride 1, dilation 1; whole,
                       // chunk (a workspace of channel planes)
  kDepthwiseChannelDsp, // tf_*_dwconv2d_channel__dsp: multiplier 1; chunks of one channel
  kIm2colDsp,          // tf_*_conv2d_im2col*__dsp: whole, chunk, rows; accumulate when 1x1
  kIm2colWideDsp,      // tf_*_conv2d_im2col_wide*__dsp: a Conv2D whose weights the plan stores widened
                       // (plan::KernelCall::wide_weights); whole, chunk, rows
  kPointwiseDsp,       // tf_*_conv2d_1x1*__dsp: 1x1, no padding; whole, chunk, rows, accumulate
  kFullyConnectedDsp,  // tf_*_fully_connected_direct*__dsp: whole, chunk, accumulate
  kWindowDsp,          // tf_*_conv2d_window__dsp: KxK (not 1x1), groups 1; whole / chunk of at most
                       // kWindowDspMaxChannels output channels (no workspace)
  kIm2colFloat,        // tf_f32_conv2d_im2col*: float32 Conv2D; whole, chunk (groups 1), rows
  kWinogradFloat,      // tf_f32_conv2d_winograd*: float32 Conv2D 3x3, stride 1, dilation 1, groups 1;
                       // whole, chunk, rows
};
// The widest call the window kernel takes: wider ones amortise im2col's
// gathered patches over enough channels to be faster.
inline constexpr int64_t kWindowDspMaxChannels = 2;
// The narrowest output rows the depthwise plane kernel takes: each row of a
// channel pays about 200 instructions of set-up, about 20 fewer a pixel
// than the workspace-free kernel afterwards (vww_96 on the Cortex-M4: 48 and
// 24 pixels wide 861,600 -> 527,800 and 822,120 -> 627,160 instructions; its
// 12, 6 and 3 pixel rows together 552,000 more).
inline constexpr int64_t kDepthwisePlanarMinCols = 16;
// The narrowest call the float32 primitives take (conv_primitive.cc).
inline constexpr int64_t kFloatFastMinChannels = 4;
std::string_view conv_primitive_name(ConvPrimitive primitive);  // "im2col_dsp", ...

// What the rule needs to know about a call: plain values, so that the rule
// (and later the ILP) reads no IR.
struct ConvCallFacts {
  ir::OpType op = ir::OpType::kConv2D;
  bool quantized = false;  // qs8 or qu8 (the __dsp kernels); float32 otherwise
  plan::CallMode mode = plan::CallMode::kWhole;
  bool row_chunk = false;  // kChunk of output rows (the _rows kernels)
  bool in_place = false;   // depthwise written over its input (line buffer workspace)
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t groups = 1, depth_multiplier = 1;
  int64_t in_channels = 0;          // of the node's input
  int64_t out_cols = 0;             // of the call's output view (width)
  int64_t in_features = 0;          // FullyConnected: In (a multiple of in_channels)
  int64_t call_in_channels = 0;     // of the call's input view (an accumulate chunk: the tile)
  int64_t call_out_channels = 0;    // of the call's output view (a chunk: the tile)
  bool rows_contiguous = true;      // FullyConnected: each row's In features are contiguous in the view
  int64_t workspace_bytes = 0;      // of the call's workspace buffer, 0 without one
  int64_t workspace_alignment = 0;  // its alignment in the arena
  bool requantize_fits = false;     // every channel meets tinyfit/requantize.h's requirement
  bool symmetric_weights = false;   // int8 weights with zero point 0, or uint8 (the __dsp kernels widen
                                    // int8 weights without an offset)
  bool wide_weights = false;        // the plan stores the node's weights widened (plan::KernelCall)
};

// Whether `primitive` computes this call (ignoring its workspace).
bool serves(ConvPrimitive primitive, const ConvCallFacts& call);

// Bytes of workspace `primitive` needs for this call (0: none), and the
// alignment it needs them at.
int64_t count_workspace_bytes(ConvPrimitive primitive, const ConvCallFacts& call);
inline constexpr int64_t kConvWorkspaceAlignment = 8;

// The rule: the first primitive of kFastestFirst that serves the call and
// whose workspace fits the call's (bytes and alignment); kDirect always does.
// Order by instructions measured on the emulated Cortex-M4
// (docs/benchmarks/mcu_latency.md): the window kernel for chunks of one or two
// channels (it serves nothing wider), then im2col + GEMM (over widened
// weights when the plan stores them so, else over int8 pairs) before the
// workspace-free 1x1 kernel; for depthwise, the channel planes, then the
// one-channel kernel for chunks of one channel (on the one-channel chunks
// both serve, the planes' cost probes ran 1.3-10.7% fewer instructions),
// then the groups of four; all before the direct loops; for float32,
// Winograd before im2col + GEMM (docs/primitive_selection.md).
ConvPrimitive choose_conv_primitive(const ConvCallFacts& call);

// The primitive the rule would pick if the call had any workspace it asked
// for, and that workspace's bytes (0 when it needs none): what a plan gives a
// call to run its fastest primitive (add_kernel_workspaces.h).
int64_t count_fastest_workspace_bytes(const ConvCallFacts& call);

}  // namespace tinyfit::exec
