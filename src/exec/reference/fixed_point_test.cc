#include "exec/reference/fixed_point.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tinyfit::exec::reference {
namespace {

double to_real(int32_t raw, int integer_bits) { return std::ldexp(static_cast<double>(raw), integer_bits - 31); }
int32_t from_real(double x, int integer_bits) { return static_cast<int32_t>(std::lround(std::ldexp(x, 31 - integer_bits))); }

TEST(FixedPoint, ExpOnNegativeValuesOfZeroIsOne) {
  EXPECT_EQ(compute_exp_on_negative_values(0, 5), std::numeric_limits<int32_t>::max());
}

TEST(FixedPoint, ExpOnNegativeValuesIsAccurateToAFewUlpsOf8Bits) {
  // The softmax output has 8 bits; gemmlowp's exp is good to ~1e-6 here.
  for (double x : {-0.01, -0.25, -0.5, -1.0, -2.5, -7.0, -20.0}) {
    EXPECT_NEAR(to_real(compute_exp_on_negative_values(from_real(x, 5), 5), 0), std::exp(x), 1e-6) << x;
  }
}

TEST(FixedPoint, OneOverOnePlusXIsAccurate) {
  for (double x : {0.0, 0.25, 0.5, 0.9}) {
    EXPECT_NEAR(to_real(compute_one_over_one_plus_x(from_real(x, 0)), 0), 1.0 / (1.0 + x), 1e-8) << x;
  }
}

TEST(FixedPoint, LogisticIsSymmetricAroundOneHalf) {
  EXPECT_EQ(compute_logistic(0, 4), 1 << 30);
  for (double x : {0.5, 2.0, 6.0}) {
    const double pos = to_real(compute_logistic(from_real(x, 4), 4), 0);
    const double neg = to_real(compute_logistic(from_real(-x, 4), 4), 0);
    EXPECT_NEAR(pos, 1.0 / (1.0 + std::exp(-x)), 1e-6) << x;
    EXPECT_NEAR(pos + neg, 1.0, 1e-8) << x;
  }
}

TEST(FixedPoint, ReciprocalReportsItsScale) {
  // 3.0 with 12 integer bits: 1/3 = (2/3) * 2^-1, so num_bits_over_unit = 1.
  int bits = 0;
  const int32_t r = compute_reciprocal(from_real(3.0, 12), 12, &bits);
  EXPECT_EQ(bits, 1);
  EXPECT_NEAR(to_real(r, 0), 2.0 / 3.0, 1e-8);
}

}  // namespace
}  // namespace tinyfit::exec::reference
