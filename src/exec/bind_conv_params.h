// The constants of a conv-family call (Conv2D, DepthwiseConv2D,
// FullyConnected): what generated code keeps in flash and hands the runtime
// kernel as a tf_conv_params (runtime/include/tinyfit/conv.h).
//
// What: the kernel dtype (qs8, qu8, f32), the weights in the kernel's element
// type (hybrid float models: int8 weights dequantised here exactly as the
// reference does, so the f32 kernel runs), the bias, TFLite's per-channel
// multipliers and shifts (computed by the reference's own prepare_conv_quant),
// offsets and clamp ranges.
// Requires: the node passed verify_graph; its weights (and bias) are constants.
// Guarantees: params() points into this object's vectors; a dtype combination
// no kernel implements is a fail_no_kernel error (exit 2).
//
// A __dsp kernel takes its weights in its own layout (tinyfit/conv.h) and the
// requantisation as tf_requant_channel records, the float Winograd kernel
// its transformed weights: pack_for() re-lays them for the chosen primitive,
// once, before the first run or emit.
//
// Weights in the kernel's element type and the IR layout are read in place
// from the graph's constant until pack_for() re-lays them: counting a plan's
// work prepares every call of every plan a compile measures, and a copy per
// call was most of light VGG19's compile (its 411 MB fully connected weights).
// Requires: the graph outlives the constants.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "exec/conv_primitive.h"
#include "exec/kernel_call.h"
#include "tinyfit/conv.h"

namespace tinyfit::exec {

// The requantisation records a __dsp kernel reads (tinyfit/requantize.h).
enum class RequantRecords {
  kPlain,              // tf_requant_channel only
  kFoldedWhenAllFold,  // tf_requant_folded when every channel has one, else tf_requant_channel
};

// Which records the kernels of `primitive` read: the im2col and depthwise
// (direct) __dsp kernels read folded records when given them.
RequantRecords requant_records_of(ConvPrimitive primitive);

class ConvConstants {
 public:
  static Result<std::unique_ptr<ConvConstants>> prepare(const KernelCallContext& context);

  ConvConstants() = default;
  ConvConstants(const ConvConstants&) = delete;  // weights_ may view owned_weights_
  ConvConstants& operator=(const ConvConstants&) = delete;

  const std::string& dtype_token() const { return dtype_token_; }  // "qs8", "qu8", "f32"
  bool is_float() const { return dtype_token_ == "f32"; }
  const tf_conv_params& params() const { return params_; }
  // Whether every output channel meets tinyfit/requantize.h's requirement
  // (quantized nodes; false for float): its multiplier is TFLite's, its right
  // shift at most 31, and the largest |accumulator| (bias plus the weights'
  // absolute sum times the largest |input + offset|) shifted left stays below 2^30.
  // A channel with a negative multiplier meets it when it can be negated
  // (weights, bias and multiplier; pack_for does it), so that the
  // multiplier is positive.
  bool requantize_fits() const { return requantize_fits_; }

  // Re-lays the weights for `primitive`'s kernel and keeps only the constants
  // it reads: one family of requantisation records when it requantises
  // (`records`: params().requant_folded when the kernel reads folded records
  // and every channel folds, exec/fold_requant.h, and then no
  // params().requant; else params().requant), multiplier and shift when it
  // only accumulates (16- and 8-bit accumulators round with them). Float32
  // nodes: only Winograd re-lays anything (its transformed weights).
  // Requires: requantize_fits() for a quantized node unless `accumulates`.
  void pack_for(ConvPrimitive primitive, bool accumulates, RequantRecords records);

  // For a kernel that reads no weights (a finalize, tinyfit/conv.h): drops
  // the weights and their per-channel sums, so that params().weights and
  // params().weight_sums are null and generated code defines neither (a
  // split convolution's finalize would otherwise keep a second copy of the
  // node's weights in flash, in the IR layout its __dsp accumulate does not share).
  void drop_weights();

  // Defines the arrays and the tf_conv_params struct in generated code;
  // returns the struct's name.
  std::string emit(CallEmitter& emitter) const;

 private:
  std::string dtype_token_;
  std::string weight_c_type_;          // int8_t, uint8_t or float; uint32_t / uint64_t words once packed
  // Makes `bytes` the weights (converted or re-laid) and params().weights.
  void own_weights(std::vector<uint8_t> bytes);

  std::span<const uint8_t> weights_;   // IR layout, kernel element type; the primitive's layout once packed
  std::vector<uint8_t> owned_weights_;  // what weights_ views when not the graph's constant
  std::vector<int32_t> bias_int_;      // qs8 / qu8
  std::vector<float> bias_float_;      // f32
  std::vector<int32_t> multiplier_, shift_;
  std::vector<int32_t> weight_sums_;   // qs8 / qu8 Conv2D and FullyConnected
  std::vector<tf_requant_channel> requant_;        // after pack_for, unless requant_folded_ is set
  std::vector<tf_requant_folded> requant_folded_;  // after pack_for, for the kernels that read it
  std::vector<int64_t> absolute_sums_;       // qs8 / qu8: per channel, sum of |weight + offset|
  bool requantize_fits_ = false;
  bool weights_channel_last_ = false;        // depthwise [KH][KW][C]; else [Cout][...]
  tf_conv_params params_{};
};

// The facts exec/conv_primitive.h's rule decides on, for this call of the
// constants' node (its views, mode and workspace buffer).
ConvCallFacts describe_conv_call(const KernelCallContext& context, const ConvConstants& constants);

}  // namespace tinyfit::exec
