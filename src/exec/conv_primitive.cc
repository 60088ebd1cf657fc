#include "exec/conv_primitive.h"

#include <array>

#include "tinyfit/conv.h"

namespace tinyfit::exec {
namespace {

constexpr std::array kFastestFirst = {ConvPrimitive::kWindowDsp,          ConvPrimitive::kIm2colWideDsp,
                                      ConvPrimitive::kIm2colDsp,          ConvPrimitive::kPointwiseDsp,       ConvPrimitive::kDepthwisePlanarDsp,
                                      ConvPrimitive::kDepthwiseChannelDsp, ConvPrimitive::kDepthwiseDsp,
                                      ConvPrimitive::kFullyConnectedDsp, ConvPrimitive::kWinogradFloat,
                                      ConvPrimitive::kIm2colFloat,       ConvPrimitive::kDirect};

bool is_whole_or_chunk(const ConvCallFacts& call) {
  return call.mode == plan::CallMode::kWhole || call.mode == plan::CallMode::kChunk;
}

// Output channels of the call's kernel come out requantised (not partial sums).
bool requantizes(const ConvCallFacts& call) { return call.mode != plan::CallMode::kAccumulate; }

bool is_unpadded_1x1(const ConvCallFacts& call) {
  return call.kernel_h == 1 && call.kernel_w == 1 && call.pad_top == 0 && call.pad_left == 0 && call.pad_bottom == 0 &&
         call.pad_right == 0;
}

// The float32 primitives: Conv2D calls that compute output channels (whole,
// chunk, or rows and cols of them), not in place, at least
// kFloatFastMinChannels of them: both compute output channels four at a
// time, and im2col's gathered patches and Winograd's transformed tiles are
// paid once per call, so narrower calls run slower than the direct loops
// (measured on the Cortex-M4: up to 5x for one channel).
bool serves_float(ConvPrimitive primitive, const ConvCallFacts& call) {
  if (call.quantized || call.op != ir::OpType::kConv2D || call.in_place || !is_whole_or_chunk(call) ||
      call.call_out_channels < kFloatFastMinChannels) {
    return false;
  }
  if (primitive == ConvPrimitive::kIm2colFloat) return call.mode == plan::CallMode::kWhole || call.groups == 1;
  return primitive == ConvPrimitive::kWinogradFloat && call.groups == 1 && call.kernel_h == 3 &&
         call.kernel_w == 3 && call.stride_h == 1 && call.stride_w == 1 && call.dilation_h == 1 &&
         call.dilation_w == 1;
}

}  // namespace

std::string_view conv_primitive_name(ConvPrimitive primitive) {
  switch (primitive) {
    case ConvPrimitive::kDirect:
      return "direct";
    case ConvPrimitive::kDepthwiseDsp:
      return "depthwise_dsp";
    case ConvPrimitive::kDepthwisePlanarDsp:
      return "depthwise_planar_dsp";
    case ConvPrimitive::kDepthwiseChannelDsp:
      return "depthwise_channel_dsp";
    case ConvPrimitive::kIm2colDsp:
      return "im2col_dsp";
    case ConvPrimitive::kIm2colWideDsp:
      return "im2col_wide_dsp";
    case ConvPrimitive::kPointwiseDsp:
      return "pointwise_dsp";
    case ConvPrimitive::kFullyConnectedDsp:
      return "fully_connected_dsp";
    case ConvPrimitive::kWindowDsp:
      return "window_dsp";
    case ConvPrimitive::kIm2colFloat:
      return "im2col_float";
    case ConvPrimitive::kWinogradFloat:
      return "winograd_float";
  }
  return "?";
}

bool serves(ConvPrimitive primitive, const ConvCallFacts& call) {
  if (primitive == ConvPrimitive::kDirect) return true;
  if (primitive == ConvPrimitive::kIm2colFloat || primitive == ConvPrimitive::kWinogradFloat) {
    return serves_float(primitive, call);
  }
  if (!call.quantized || !call.symmetric_weights || call.mode == plan::CallMode::kFinalize ||
      call.mode == plan::CallMode::kCopy) {
    return false;
  }
  if (requantizes(call) && !call.requantize_fits) return false;
  switch (primitive) {
    case ConvPrimitive::kDepthwiseDsp:
      return call.op == ir::OpType::kDepthwiseConv2D && call.depth_multiplier == 1 && is_whole_or_chunk(call);
    case ConvPrimitive::kDepthwisePlanarDsp:
      return call.op == ir::OpType::kDepthwiseConv2D && call.depth_multiplier == 1 && is_whole_or_chunk(call) &&
             !call.row_chunk && !call.in_place && call.kernel_h == 3 && call.kernel_w == 3 && call.stride_h == 1 &&
             call.stride_w == 1 && call.dilation_h == 1 && call.dilation_w == 1 &&
             call.out_cols >= kDepthwisePlanarMinCols;
    case ConvPrimitive::kDepthwiseChannelDsp:
      // One channel at a time: faster than the groups of four only when a
      // call has one channel, slower than the planes where they serve
      // (measured on the Cortex-M4, mcu_latency.md).
      return call.op == ir::OpType::kDepthwiseConv2D && call.depth_multiplier == 1 &&
             call.mode == plan::CallMode::kChunk && !call.row_chunk && !call.in_place && call.call_out_channels == 1;
    case ConvPrimitive::kIm2colDsp:
      if (call.op != ir::OpType::kConv2D || call.in_place) return false;
      if (call.mode == plan::CallMode::kAccumulate) return call.groups == 1 && call.kernel_h * call.kernel_w == 1;
      return call.mode == plan::CallMode::kWhole || call.groups == 1;
    case ConvPrimitive::kIm2colWideDsp:
      return call.wide_weights && call.op == ir::OpType::kConv2D && !call.in_place && is_whole_or_chunk(call) &&
             (call.mode == plan::CallMode::kWhole || call.groups == 1);
    case ConvPrimitive::kPointwiseDsp:
      return call.op == ir::OpType::kConv2D && call.groups == 1 && is_unpadded_1x1(call);
    case ConvPrimitive::kFullyConnectedDsp:
      return call.op == ir::OpType::kFullyConnected && call.rows_contiguous &&
             (call.mode != plan::CallMode::kAccumulate || call.in_features == call.in_channels);
    case ConvPrimitive::kWindowDsp:
      return call.op == ir::OpType::kConv2D && call.groups == 1 && is_whole_or_chunk(call) && !call.row_chunk &&
             !call.in_place && call.kernel_h * call.kernel_w > 1 && call.call_out_channels > 0 &&
             call.call_out_channels <= kWindowDspMaxChannels;
    case ConvPrimitive::kDirect:
    case ConvPrimitive::kIm2colFloat:
    case ConvPrimitive::kWinogradFloat:
      break;
  }
  return false;
}

int64_t count_workspace_bytes(ConvPrimitive primitive, const ConvCallFacts& call) {
  if (primitive == ConvPrimitive::kIm2colFloat) {
    const int64_t taps = call.kernel_h * call.kernel_w * (call.in_channels / call.groups);
    return tf_f32_conv2d_im2col_workspace_bytes(static_cast<int32_t>(taps));
  }
  if (primitive == ConvPrimitive::kWinogradFloat) {
    return tf_f32_conv2d_winograd_workspace_bytes(static_cast<int32_t>(call.in_channels));
  }
  if (primitive == ConvPrimitive::kDepthwisePlanarDsp) {
    return tf_dwconv2d_planar_workspace_bytes(static_cast<int32_t>(call.out_cols));
  }
  if (primitive != ConvPrimitive::kIm2colDsp && primitive != ConvPrimitive::kIm2colWideDsp) return 0;
  const int64_t tap_channels =
      call.mode == plan::CallMode::kAccumulate ? call.call_in_channels : call.in_channels / call.groups;
  return tf_conv2d_im2col_workspace_bytes(static_cast<int32_t>(call.kernel_h * call.kernel_w * tap_channels));
}

ConvPrimitive choose_conv_primitive(const ConvCallFacts& call) {
  for (ConvPrimitive primitive : kFastestFirst) {
    if (!serves(primitive, call)) continue;
    const int64_t bytes = count_workspace_bytes(primitive, call);
    if (bytes == 0 || (call.workspace_bytes >= bytes && call.workspace_alignment % kConvWorkspaceAlignment == 0)) {
      return primitive;
    }
  }
  return ConvPrimitive::kDirect;
}

int64_t count_fastest_workspace_bytes(const ConvCallFacts& call) {
  for (ConvPrimitive primitive : kFastestFirst) {
    if (serves(primitive, call)) return count_workspace_bytes(primitive, call);
  }
  return 0;
}

}  // namespace tinyfit::exec
