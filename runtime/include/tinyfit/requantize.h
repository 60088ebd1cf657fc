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

/* The same requantisation with the output zero point folded in, for the
 * __dsp kernels' inner loops (params->requant_folded, which the compiler
 * emits when every channel of a node has such a record): with e = right_shift
 * >= 1 the form above is floor((2xm + 2^31 + k * 2^32) / 2^(32+e)) with
 * k = 2^(e-1) - (x < 0), so adding the zero point z times 2^e to k adds z to
 * the result: addend = 2^(e-1) + z * 2^e, and the sign term is acc >> 31
 * (sign_mask is -1 for every e >= 1). A dead channel (multiplier 0, or all
 * weights zero: its output the constant r) is multiplier 0, e = 1 and
 * addend = 2 (z + r) + 1. Requires, besides the requirement above, e <= 22
 * (so that k plus the high word stays within int32; the compiler checks). */
typedef struct tf_requant_folded {
  int32_t multiplier;  /* TFLite's Q31 multiplier, or 0 */
  int32_t left_shift;  /* TFLite's left shift + 1 */
  int32_t addend;      /* 2^(right_shift - 1) + zero point * 2^right_shift */
  int32_t right_shift; /* 1..22 */
} tf_requant_folded;

/* tf_requantize(acc, q) + the output zero point, for the record of q. */
static inline int32_t tf_requantize_folded(int32_t acc, const tf_requant_folded* f) {
  const int32_t doubled = (int32_t)((uint32_t)acc << f->left_shift);
  const uint32_t k = (uint32_t)f->addend + (uint32_t)(acc >> 31);
  const int64_t addend = (int64_t)((uint64_t)k << 32 | 0x80000000u);
  return (int32_t)((addend + (int64_t)doubled * f->multiplier) >> 32) >> f->right_shift;
}

#endif /* TINYFIT_REQUANTIZE_H_ */
