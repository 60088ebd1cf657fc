// The integer clamp a fused activation applies to a quantized output, as
// TensorFlow Lite computes it: the reference kernels clamp with it
// (exec/reference), and the latency model asks whether it narrows the
// element type's range (cost/: the SIMD kernels' stores are cheaper when it
// does not).
#pragma once

#include <cstdint>

#include "ir/attrs.h"
#include "ir/dtype.h"

namespace tinyfit::ir {

// Round half away from zero of a float, as TfLiteRound (std::round),
// saturated to int32 (NaN to its minimum).
int32_t round_to_int32(float x);

// TFLite CalculateActivationRangeQuantized generalised to any real clamp
// [min, max]: act_min = max(qmin, zp + round(min / scale)),
// act_max = min(qmax, zp + round(max / scale)), in float like TFLite.
struct ActivationRange {
  int32_t min = 0;
  int32_t max = 0;
};
ActivationRange compute_activation_range_quantized(const FusedActivation& activation, DType dtype, float scale,
                                                   int32_t zero_point);

}  // namespace tinyfit::ir
