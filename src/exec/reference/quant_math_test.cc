#include "exec/reference/quant_math.h"

#include <gtest/gtest.h>

#include <limits>

namespace tinyfit::exec::reference {
namespace {

TEST(QuantMath, QuantizeMultiplierNormalisesToQ31) {
  // frexp(0.75) = 0.75 * 2^0; 0.75 * 2^31 = 1610612736.
  EXPECT_EQ(quantize_multiplier(0.75).multiplier, 1610612736);
  EXPECT_EQ(quantize_multiplier(0.75).shift, 0);
  // 1.0 = 0.5 * 2^1.
  EXPECT_EQ(quantize_multiplier(1.0).multiplier, 1 << 30);
  EXPECT_EQ(quantize_multiplier(1.0).shift, 1);
  // 0.1 = 0.8 * 2^-3; round(0.8 * 2^31) = 1717986918.
  EXPECT_EQ(quantize_multiplier(0.1).multiplier, 1717986918);
  EXPECT_EQ(quantize_multiplier(0.1).shift, -3);
}

TEST(QuantMath, QuantizeMultiplierFlushesTinyValuesToZero) {
  // 2^-40 = 0.5 * 2^-39: shift below -31 flushes (TFLite QuantizeMultiplier).
  EXPECT_EQ(quantize_multiplier(1.0 / (1ll << 40)).multiplier, 0);
  EXPECT_EQ(quantize_multiplier(1.0 / (1ll << 40)).shift, 0);
  EXPECT_EQ(quantize_multiplier(0.0).multiplier, 0);
}

TEST(QuantMath, QuantizeMultiplierCarriesARoundingOverflowIntoTheShift) {
  // 0.99999999999 * 2^31 rounds to 2^31, which becomes 2^30 with shift + 1.
  const QuantizedMultiplier m = quantize_multiplier(0.99999999999);
  EXPECT_EQ(m.multiplier, 1 << 30);
  EXPECT_EQ(m.shift, 1);
}

TEST(QuantMath, SaturatingRoundingDoublingHighMulSaturatesTheOnlyOverflow) {
  const int32_t min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(saturating_rounding_doubling_high_mul(min, min), std::numeric_limits<int32_t>::max());
  // 2^30 * 2^30 * 2 / 2^32 = 2^29.
  EXPECT_EQ(saturating_rounding_doubling_high_mul(1 << 30, 1 << 30), 1 << 29);
}

TEST(QuantMath, SaturatingRoundingDoublingHighMulRoundsNegativeHalvesUp) {
  // 5 * 0.5 = 2.5 -> 3, but -2.5 -> -2: gemmlowp's nudge is 1 - 2^30 for
  // negatives and the division truncates, so exact negative halves go up.
  EXPECT_EQ(saturating_rounding_doubling_high_mul(5, 1 << 30), 3);
  EXPECT_EQ(saturating_rounding_doubling_high_mul(-5, 1 << 30), -2);
}

TEST(QuantMath, RoundingDivideByPotRoundsHalfAwayFromZero) {
  EXPECT_EQ(rounding_divide_by_pot(5, 1), 3);    // 2.5
  EXPECT_EQ(rounding_divide_by_pot(-5, 1), -3);  // -2.5
  EXPECT_EQ(rounding_divide_by_pot(6, 2), 2);    // 1.5
  EXPECT_EQ(rounding_divide_by_pot(-6, 2), -2);  // -1.5
  EXPECT_EQ(rounding_divide_by_pot(5, 2), 1);    // 1.25
  EXPECT_EQ(rounding_divide_by_pot(-7, 2), -2);  // -1.75
  EXPECT_EQ(rounding_divide_by_pot(7, 0), 7);
}

TEST(QuantMath, RoundingDivideByPotBeyond31BitsRoundsToNearest) {
  // TFLite's softmax output shift reaches 32 on rows of 512+ equal values.
  EXPECT_EQ(rounding_divide_by_pot(1 << 30, 32), 0);         // 0.25
  EXPECT_EQ(rounding_divide_by_pot(0x7fffffff, 32), 0);      // 0.4999...
  EXPECT_EQ(rounding_divide_by_pot(-0x7fffffff - 1, 32), -1);  // -0.5: away from zero
  EXPECT_EQ(rounding_divide_by_pot(-0x7fffffff - 1, 33), 0);   // -0.25
}

TEST(QuantMath, MultiplyByQuantizedMultiplierRoundsHalfAwayFromZero) {
  // 0.25 = 2^30 * 2^(-1 - 31): the high multiply halves exactly, the rounding
  // right shift rounds 2.5 to 3 and -2.5 to -3.
  EXPECT_EQ(multiply_by_quantized_multiplier(10, 1 << 30, -1), 3);
  EXPECT_EQ(multiply_by_quantized_multiplier(-10, 1 << 30, -1), -3);
}

TEST(QuantMath, MultiplyByQuantizedMultiplierRoundsTwice) {
  // 9 * 0.25 = 2.25, yet the result is 3: the high multiply rounds 4.5 up to 5,
  // then the right shift rounds 2.5 up to 3. TFLite's default double rounding
  // does exactly this, and the golden outputs depend on it.
  EXPECT_EQ(multiply_by_quantized_multiplier(9, 1 << 30, -1), 3);
}

TEST(QuantMath, MultiplyByQuantizedMultiplierShiftsLeftForMultipliersAboveOne) {
  // 3.0 = 0.75 * 2^2.
  const QuantizedMultiplier m = quantize_multiplier(3.0);
  EXPECT_EQ(m.shift, 2);
  EXPECT_EQ(multiply_by_quantized_multiplier(7, m), 21);
  EXPECT_EQ(multiply_by_quantized_multiplier(-7, m), -21);
}

TEST(QuantMath, ActivationRangeQuantizesTheClampLikeTflite) {
  // Relu6 on scale 0.05, zero point -10: min = -10 + round(0 / 0.05) = -10,
  // max = -10 + round(6 / 0.05) = 110.
  const ActivationRange relu6 =
      compute_activation_range_quantized({0.0f, 6.0f}, ir::DType::kI8, 0.05f, -10);
  EXPECT_EQ(relu6.min, -10);
  EXPECT_EQ(relu6.max, 110);
  // No clamp: the dtype range.
  const ActivationRange none = compute_activation_range_quantized({}, ir::DType::kU8, 0.05f, 3);
  EXPECT_EQ(none.min, 0);
  EXPECT_EQ(none.max, 255);
  // A clamp beyond the representable range saturates to it: 6 / 0.01 = 600.
  EXPECT_EQ(compute_activation_range_quantized({0.0f, 6.0f}, ir::DType::kI8, 0.01f, 0).max, 127);
}

}  // namespace
}  // namespace tinyfit::exec::reference
