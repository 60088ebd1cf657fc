// The few gemmlowp fixed-point functions TFLite's int8 SOFTMAX and LOGISTIC
// use (gemmlowp/fixedpoint/fixedpoint.h), on raw int32 values. A value with
// `integer_bits` integer bits has 31 - integer_bits fractional bits.
#pragma once

#include <cstdint>

namespace tinyfit::exec::reference {

// exp(a) for a <= 0; a has `integer_bits` integer bits (TFLite uses 5 for
// softmax, 4 for logistic), the result has 0 integer bits.
int32_t compute_exp_on_negative_values(int32_t a, int integer_bits);

// 1 / (1 + x) for x in [0, 1), both with 0 integer bits.
int32_t compute_one_over_one_plus_x(int32_t x);

// logistic(a), a with `integer_bits` integer bits, result with 0.
int32_t compute_logistic(int32_t a, int integer_bits);

// TFLite GetReciprocal: 1/x for x with `x_integer_digits` integer bits, as a
// value with 0 integer bits scaled by 2^-num_bits_over_unit.
int32_t compute_reciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit);

// gemmlowp SaturatingRoundingMultiplyByPOT: x * 2^exponent, saturating when
// shifting left and rounding half away from zero when shifting right.
int32_t saturating_rounding_multiply_by_pot(int32_t x, int exponent);

}  // namespace tinyfit::exec::reference
