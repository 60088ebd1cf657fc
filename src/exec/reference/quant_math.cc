#include "exec/reference/quant_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "support/diag.h"

namespace tinyfit::exec::reference {

QuantizedMultiplier quantize_multiplier(double real_multiplier) {
  QuantizedMultiplier result;
  if (real_multiplier == 0.0) return result;
  int shift = 0;
  const double q = std::frexp(real_multiplier, &shift);
  auto q_fixed = static_cast<int64_t>(std::round(q * static_cast<double>(1ll << 31)));
  TINYFIT_CHECK(q_fixed <= (1ll << 31)) << "multiplier " << real_multiplier;
  if (q_fixed == (1ll << 31)) {
    q_fixed /= 2;
    ++shift;
  }
  // All bits would be shifted out: TFLite flushes to zero.
  if (shift < -31) {
    shift = 0;
    q_fixed = 0;
  }
  // TFLite clamps so that single-rounding kernels stay within range; kept for
  // bit-exactness with it.
  if (shift > 30) {
    shift = 30;
    q_fixed = (1ll << 31) - 1;
  }
  result.multiplier = static_cast<int32_t>(q_fixed);
  result.shift = shift;
  return result;
}

int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (1ll << 30) : (1 - (1ll << 30));
  // Division (not a shift) truncates toward zero, as gemmlowp does.
  const auto high = static_cast<int32_t>((ab + nudge) / (1ll << 31));
  return overflow ? std::numeric_limits<int32_t>::max() : high;
}

int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  // gemmlowp stops at 31; TFLite's softmax reaches 32+ on long rows of equal
  // values (its output shift grows with the sum), where the C++ shift would be
  // undefined. In 64 bits the same round-half-away-from-zero rule gives the
  // mathematically rounded quotient (0 for |x| < 2^(exponent-1)).
  TINYFIT_CHECK(exponent >= 0 && exponent <= 62) << "exponent " << exponent;
  const int64_t wide = x;
  const int64_t mask = (int64_t{1} << exponent) - 1;
  const int64_t remainder = wide & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int32_t>((wide >> exponent) + (remainder > threshold ? 1 : 0));
}

int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift) {
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  // TFLite multiplies in int32 (x * (1 << left_shift)); wrap like it does
  // rather than invoke undefined behaviour.
  const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << left_shift);
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted, multiplier), right_shift);
}

}  // namespace tinyfit::exec::reference
