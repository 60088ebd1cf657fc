#include "ir/activation_range.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tinyfit::ir {

int32_t round_to_int32(float x) {
  const float r = std::round(x);
  if (!(r >= -2147483648.0f)) return std::numeric_limits<int32_t>::min();  // also NaN
  if (r >= 2147483648.0f) return std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(r);
}

ActivationRange compute_activation_range_quantized(const FusedActivation& activation, DType dtype, float scale,
                                                   int32_t zero_point) {
  ActivationRange range{dtype_min(dtype), dtype_max(dtype)};
  auto quantize = [&](float f) {
    return static_cast<int32_t>(
        std::clamp<int64_t>(static_cast<int64_t>(zero_point) + round_to_int32(f / scale),
                            std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()));
  };
  if (activation.min > -std::numeric_limits<float>::infinity()) {
    range.min = std::max(range.min, quantize(activation.min));
  }
  if (activation.max < std::numeric_limits<float>::infinity()) {
    range.max = std::min(range.max, quantize(activation.max));
  }
  return range;
}

}  // namespace tinyfit::ir
