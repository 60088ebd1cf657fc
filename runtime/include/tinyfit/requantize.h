/* TFLite's requantisation of an int32 accumulator (MultiplyByQuantizedMultiplier:
 * left shift, SaturatingRoundingDoublingHighMul, RoundingDivideByPOT; see
 * fixed_point.h) in one 64-bit multiply-accumulate and two shifts, bit for bit,
 * with the per-channel constants computed once by the compiler.
 *
 * Why it is exact. With x = acc << ls, e = the right shift, and m the Q31
 * multiplier (m == 0 or 2^30 <= m < 2^31):
 *  - SRDHM(x, m) = floor((x*m + 2^30) / 2^31) for every x (gemmlowp's nudge
 *    and truncation toward zero give the same value for negative products);
 *  - RDBP(v, e) = floor((v + 2^(e-1)) / 2^e) for v >= 0 and
 *    floor((v + 2^(e-1) - 1) / 2^e) for v < 0 (e >= 1; e == 0 is v);
 *  - floor((floor(y) + c) / d) = floor((y + c) / d) for integers c, d > 0.
 * So the result is floor((2xm + 2^31 + k * 2^32) / 2^(32+e)) with k = 2^(e-1),
 * minus 1 when v < 0 (k = 0 for e == 0): a rounding high multiply plus k,
 * then an arithmetic shift by e. v < 0 exactly when x < 0 (m >= 2^30; x = -1
 * with m = 2^30 gives v = 0 and both forms give 0).
 * Requires (the compiler checks it per channel, else it calls a kernel with
 * the generic form): |acc << ls| < 2^30, so that 2x fits int32; e <= 31. */
#ifndef TINYFIT_REQUANTIZE_H_
#define TINYFIT_REQUANTIZE_H_

#include <stdint.h>

typedef struct tf_requant_channel {
  int32_t multiplier;  /* TFLite's Q31 multiplier: 0 or in [2^30, 2^31) */
  int32_t left_shift;  /* TFLite's left shift + 1 (the doubling) */
  int32_t rounding;    /* 2^(right_shift - 1), 0 when right_shift is 0 */
  int32_t sign_mask;   /* -1 when right_shift > 0 (negative sums round down by one more), else 0 */
  int32_t right_shift; /* TFLite's right shift, 0..31 */
} tf_requant_channel;

/* TFLite's MultiplyByQuantizedMultiplier(acc, multiplier, shift) under the
 * requirement above. */
static inline int32_t tf_requantize(int32_t acc, const tf_requant_channel* q) {
  const int32_t doubled = (int32_t)((uint32_t)acc << q->left_shift);
  const uint32_t k = (uint32_t)(q->rounding + (q->sign_mask & (acc >> 31)));
  /* k * 2^32 + 2^31 as one 64-bit addend: a single SMLAL on Cortex-M. */
  const int64_t addend = (int64_t)((uint64_t)k << 32 | 0x80000000u);
  return (int32_t)((addend + (int64_t)doubled * q->multiplier) >> 32) >> q->right_shift;
}

#endif /* TINYFIT_REQUANTIZE_H_ */
