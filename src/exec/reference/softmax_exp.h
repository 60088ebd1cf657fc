// The exp step of TFLite's int8 / uint8 SOFTMAX (softmax.h,
// PreprocessSoftmaxScaling + CalculateInputRadius), shared by the reference
// kernel and the runtime kernel's prepare step (exec/bind_normalization.cc),
// which tabulates it for the 256 differences 8-bit elements can have.
#pragma once

#include <cstdint>

namespace tinyfit::exec::reference {

inline constexpr int kSoftmaxScaledDiffIntegerBits = 5;   // Q5.26 scaled differences
inline constexpr int kSoftmaxAccumulationIntegerBits = 12;  // Q12.19 sum of exps

struct SoftmaxExpParams {
  int32_t input_multiplier = 0;
  int input_left_shift = 0;
  int32_t diff_min = 0;  // differences below this contribute nothing
};

SoftmaxExpParams prepare_softmax_exp(double beta, double input_scale);

// exp(beta * input_scale * diff) in Q0.31 for a difference diff <= 0 to the
// row maximum (MultiplyByQuantizedMultiplierGreaterThanOne, then gemmlowp
// exp_on_negative_values). Requires: diff >= params.diff_min.
int32_t compute_softmax_exp(const SoftmaxExpParams& params, int32_t diff);

}  // namespace tinyfit::exec::reference
