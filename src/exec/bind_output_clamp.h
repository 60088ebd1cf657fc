// A fused activation applied after an operator whose kernels only move
// values (Concat): one more call that clamps output view 0 in place, so run()
// and emit() make the same two calls.
#pragma once

#include <memory>

#include "exec/kernel_call.h"
#include "exec/reference/kernel.h"

namespace tinyfit::exec {

// int8 / uint8: tf_x8_lut with a 256-byte table clamping each byte to the
// activation's range in the output's quantized domain (the reference's
// compute_activation_range_quantized); float32: tf_f32_clip_direct.
// Requires: activation not none; `output` i8, u8 (with `quant`) or f32.
std::unique_ptr<PreparedKernel> make_output_clamp_kernel(const ir::Tensor& output,
                                                         const ir::FusedActivation& activation,
                                                         const reference::TensorQuant& quant);

}  // namespace tinyfit::exec
