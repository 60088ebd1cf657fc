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
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec/kernel_call.h"
#include "tinyfit/conv.h"

namespace tinyfit::exec {

class ConvConstants {
 public:
  static Result<std::unique_ptr<ConvConstants>> prepare(const KernelCallContext& context);

  const std::string& dtype_token() const { return dtype_token_; }  // "qs8", "qu8", "f32"
  bool is_float() const { return dtype_token_ == "f32"; }
  const tf_conv_params& params() const { return params_; }

  // Defines the arrays and the tf_conv_params struct in generated code;
  // returns the struct's name.
  std::string emit(CallEmitter& emitter) const;

 private:
  std::string dtype_token_;
  std::string weight_c_type_;          // int8_t, uint8_t or float
  std::vector<uint8_t> weights_;       // IR layout, kernel element type
  std::vector<int32_t> bias_int_;      // qs8 / qu8
  std::vector<float> bias_float_;      // f32
  std::vector<int32_t> multiplier_, shift_;
  std::vector<int32_t> weight_sums_;   // qs8 / qu8 Conv2D and FullyConnected
  tf_conv_params params_{};
};

}  // namespace tinyfit::exec
