#include "exec/reference/fixed_point.h"

#include <bit>
#include <limits>

#include "exec/reference/quant_math.h"
#include "support/diag.h"

namespace tinyfit::exec::reference {
namespace {

constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();

// Fixed-point product of two values: the integer bits add up, the raw value is
// the rounding doubling high multiply (gemmlowp operator*).
int32_t multiply(int32_t a, int32_t b) { return saturating_rounding_doubling_high_mul(a, b); }

// gemmlowp's int32 + and - wrap (two's complement); emulate without UB.
int32_t add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
int32_t subtract(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

// One() of a fixed-point type: exactly 2^fractional_bits, or INT32_MAX when there
// are no integer bits (1.0 is not representable).
int32_t one(int integer_bits) { return integer_bits == 0 ? kInt32Max : (1 << (31 - integer_bits)); }

// exp(a) for a in [-1/4, 0), 0 integer bits in and out (gemmlowp
// exp_on_interval_between_negative_one_quarter_and_0_excl).
int32_t compute_exp_on_interval(int32_t a) {
  const int32_t constant_term = 1895147668;
  const int32_t constant_1_over_3 = 715827883;
  const int32_t x = add(a, 1 << 28);  // Taylor expansion around -1/8
  const int32_t x2 = multiply(x, x);
  const int32_t x3 = multiply(x2, x);
  const int32_t x4 = multiply(x2, x2);
  const int32_t x4_over_4 = saturating_rounding_multiply_by_pot(x4, -2);
  const int32_t x4_over_24_plus_x3_over_6_plus_x2_over_2 =
      saturating_rounding_multiply_by_pot(add(multiply(add(x4_over_4, x3), constant_1_over_3), x2), -1);
  return add(constant_term, multiply(constant_term, add(x, x4_over_24_plus_x3_over_6_plus_x2_over_2)));
}

}  // namespace

int32_t saturating_rounding_multiply_by_pot(int32_t x, int exponent) {
  if (exponent == 0) return x;
  if (exponent < 0) return rounding_divide_by_pot(x, -exponent);
  const int32_t threshold = static_cast<int32_t>((1ll << (31 - exponent)) - 1);
  if (x > threshold) return kInt32Max;
  if (x < -threshold) return kInt32Min;
  return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

int32_t compute_exp_on_negative_values(int32_t a, int integer_bits) {
  TINYFIT_CHECK(integer_bits >= 1 && integer_bits <= 5) << "integer_bits " << integer_bits;
  const int fractional_bits = 31 - integer_bits;
  const int32_t one_quarter = 1 << (fractional_bits - 2);
  const int32_t mask = one_quarter - 1;
  const int32_t a_mod_quarter_minus_one_quarter = subtract(a & mask, one_quarter);
  // Rescale<0>: from integer_bits integer bits to none.
  int32_t result = compute_exp_on_interval(
      saturating_rounding_multiply_by_pot(a_mod_quarter_minus_one_quarter, integer_bits));
  const int32_t remainder = subtract(a_mod_quarter_minus_one_quarter, a);
  // Barrel shifter: multiply by exp(-2^k) for each set bit of the remainder.
  struct Step {
    int exponent;
    int32_t multiplier;
  };
  constexpr Step kSteps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                             {2, 39332535},    {3, 720401},      {4, 242}};
  for (const Step& step : kSteps) {
    if (integer_bits > step.exponent) {
      const int shift = fractional_bits + step.exponent;
      if ((remainder & (1 << shift)) != 0) result = multiply(result, step.multiplier);
    }
  }
  // integer_bits <= 5: gemmlowp's clamp for inputs below -32 does not apply.
  return a == 0 ? one(0) : result;
}

int32_t compute_one_over_one_plus_x(int32_t x) {
  // RoundingHalfSum(x, One()) in 64 bits, truncating division like gemmlowp.
  const int64_t sum = static_cast<int64_t>(x) + one(0);
  const int64_t sign = sum >= 0 ? 1 : -1;
  const auto half_denominator = static_cast<int32_t>((sum + sign) / 2);
  // Newton-Raphson in values with 2 integer bits.
  const int32_t constant_48_over_17 = 1515870810;
  const int32_t constant_neg_32_over_17 = -1010580540;
  int32_t y = add(constant_48_over_17, multiply(half_denominator, constant_neg_32_over_17));
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_y = multiply(half_denominator, y);  // 2 integer bits
    const int32_t one_minus = subtract(one(2), half_denominator_times_y);
    // y * one_minus has 4 integer bits; Rescale<2> shifts left by 2.
    y = add(y, saturating_rounding_multiply_by_pot(multiply(y, one_minus), 2));
  }
  // ExactMulByPot<-1> reinterprets as 1 integer bit; Rescale<0> shifts left by 1.
  return saturating_rounding_multiply_by_pot(y, 1);
}

int32_t compute_logistic(int32_t a, int integer_bits) {
  if (a == 0) return 1 << 30;  // one half
  const bool positive = a > 0;
  const int32_t abs_a = positive ? a : subtract(0, a);
  const int32_t result_if_positive =
      compute_one_over_one_plus_x(compute_exp_on_negative_values(subtract(0, abs_a), integer_bits));
  return positive ? result_if_positive : subtract(one(0), result_if_positive);
}

int32_t compute_reciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit) {
  TINYFIT_CHECK(x > 0) << "reciprocal of " << x;
  const int headroom_plus_one = std::countl_zero(static_cast<uint32_t>(x));
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  const auto shifted_sum_minus_one = static_cast<int32_t>(
      (static_cast<uint32_t>(x) << headroom_plus_one) - (static_cast<uint32_t>(1) << 31));
  return compute_one_over_one_plus_x(shifted_sum_minus_one);
}

}  // namespace tinyfit::exec::reference
