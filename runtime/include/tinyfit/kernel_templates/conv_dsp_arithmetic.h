/* The element arithmetic of the __dsp conv-family kernels (tinyfit/dsp.h),
 * shared by int8 (qs8) and uint8 (qu8): the including file defines
 * TF_DSP_ELEMENT (int8_t or uint8_t), TF_DSP_EXTEND (tf_sxtab16 or
 * tf_uxtab16, which widens bytes 0 and 2 of a word into two 16-bit lanes and
 * adds an offset to each) and TF_DSP_UNSIGNED (0 or 1).
 *
 * Offsets are added as elements are widened, so every product is
 * (x + input_offset) * (w + weight_offset) of TFLite's int32 sum, computed
 * exactly in 16x16-bit multiplies (both factors are within [-255, 255]):
 * no zero-point correction terms, and a padded tap is simply skipped.
 * Outputs are requantised by tf_requantize (requantize.h) with the per-channel
 * constants of params->requant. Included once per kernel file. */
#include <stddef.h>
#include <stdint.h>

#include "tinyfit/dsp.h"
#include "tinyfit/requantize.h"

typedef TF_DSP_ELEMENT dsp_element;

/* The _direct kernels' accumulator arithmetic (conv_store_accumulator) for
 * accumulate calls: 32-bit sums are exact and need no multiplier; 16- and
 * 8-bit ones round with params->multiplier / shift as those kernels do. */
#define TF_CONV_ELEMENT TF_DSP_ELEMENT
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"

/* Lanes (b0 + offset, b2 + offset) and (b1 + offset, b3 + offset) of a word of
 * four elements: the even and odd elements, widened. */
static inline uint32_t dsp_widen_even(uint32_t word, uint32_t offset_lanes) {
  return TF_DSP_EXTEND(offset_lanes, word);
}
static inline uint32_t dsp_widen_odd(uint32_t word, uint32_t offset_lanes) {
#if TF_DSP_UNSIGNED
  return tf_uxtab16_ror8(offset_lanes, word);
#else
  return tf_sxtab16_ror8(offset_lanes, word);
#endif
}

/* A word of four elements as one 64-bit column word (conv2d_im2col_dsp.h's
 * columns): its even elements widened in the low half, its odd in the high. */
static inline uint64_t dsp_widen_column_word(uint32_t word, uint32_t offset_lanes) {
  return (uint64_t)dsp_widen_odd(word, offset_lanes) << 32 | dsp_widen_even(word, offset_lanes);
}

/* The same for a word of four weights: int8 weights are symmetric (offset 0,
 * TFLite's int8 scheme; the compiler calls __dsp kernels only then), so they
 * widen without an offset register; uint8 weights add theirs. */
#if TF_DSP_UNSIGNED
static inline uint32_t dsp_widen_weights_even(uint32_t word, uint32_t offset_lanes) {
  return dsp_widen_even(word, offset_lanes);
}
static inline uint32_t dsp_widen_weights_odd(uint32_t word, uint32_t offset_lanes) {
  return dsp_widen_odd(word, offset_lanes);
}
#else
static inline uint32_t dsp_widen_weights_even(uint32_t word, uint32_t offset_lanes) {
  (void)offset_lanes;
  return tf_sxtb16(word);
}
static inline uint32_t dsp_widen_weights_odd(uint32_t word, uint32_t offset_lanes) {
  (void)offset_lanes;
  return tf_sxtb16_ror8(word);
}
#endif

/* The even and odd elements of a word widened without an offset (the
 * offset's share then goes into the bias). */
static inline uint32_t dsp_widen_plain_even(uint32_t word) {
#if TF_DSP_UNSIGNED
  return tf_uxtb16(word);
#else
  return tf_sxtb16(word);
#endif
}
static inline uint32_t dsp_widen_plain_odd(uint32_t word) {
#if TF_DSP_UNSIGNED
  return tf_uxtb16_ror8(word);
#else
  return tf_sxtb16_ror8(word);
#endif
}

/* One element plus its offset, for the scalar tails. */
static inline int32_t dsp_widen(dsp_element x, int32_t offset) { return (int32_t)x + offset; }

/* The output zero point and clamp, copied out of the params once per call
 * (element stores may alias the params, so the compiler would reload them
 * after every store), also as four-lane words for dsp_store4. */
typedef struct dsp_clamp {
  int32_t zero_point, min, max;
  uint32_t min_lanes, max_lanes; /* min and max in each byte */
} dsp_clamp;

static inline dsp_clamp dsp_make_clamp(const tf_conv_params* p) {
  dsp_clamp c;
  c.zero_point = p->output_offset;
  c.min = p->activation_min;
  c.max = p->activation_max;
  c.min_lanes = ((uint32_t)c.min & 0xffu) * 0x01010101u;
  c.max_lanes = ((uint32_t)c.max & 0xffu) * 0x01010101u;
  return c;
}

/* The clamped output element of a requantised value. */
static inline dsp_element dsp_clamp_output(int32_t requantised, const dsp_clamp* c) {
  const int32_t v = requantised + c->zero_point;
  return (dsp_element)(v < c->min ? c->min : v > c->max ? c->max : v);
}

static inline dsp_element dsp_requantize(int32_t acc, const tf_requant_channel* q, const dsp_clamp* c) {
  return dsp_clamp_output(tf_requantize(acc, q), c);
}

/* tf_requantize with SMMLAR's rounding addend (one instruction less). */
static inline int32_t dsp_requantize_smmlar(int32_t acc, const tf_requant_channel* q) {
  return tf_smmlar((int32_t)((uint32_t)acc << q->left_shift), q->multiplier, q->rounding + (q->sign_mask & (acc >> 31))) >>
         q->right_shift;
}

/* tf_requantize_folded with SMMLAR: the output zero point is in the addend
 * and the sign term one add (no sign mask), so a value is a shift, an add,
 * SMMLAR and a shift; store it through a clamp whose zero_point is 0
 * (dsp_folded_clamp). */
static inline int32_t dsp_requantize_folded(int32_t acc, const tf_requant_folded* f) {
  return tf_smmlar((int32_t)((uint32_t)acc << f->left_shift), f->multiplier, f->addend + (acc >> 31)) >>
         f->right_shift;
}

/* The clamp for values of dsp_requantize_folded (their zero point added). */
static inline dsp_clamp dsp_folded_clamp(const dsp_clamp* c) {
  dsp_clamp folded = *c;
  folded.zero_point = 0;
  return folded;
}

/* Four requantised values saturated to the element type and packed into one
 * word (value i in byte i), clamped lane-wise (SSUB8 / SEL). */
static inline uint32_t dsp_clamp4(int32_t r0, int32_t r1, int32_t r2, int32_t r3, const dsp_clamp* c) {
#if TF_DSP_INTRINSICS
#if TF_DSP_UNSIGNED
  uint32_t word = tf_pack_bytes((int32_t)__usat(r0 + c->zero_point, 8), (int32_t)__usat(r1 + c->zero_point, 8),
                                (int32_t)__usat(r2 + c->zero_point, 8), (int32_t)__usat(r3 + c->zero_point, 8));
  (void)__usub8(word, c->min_lanes);
  word = __sel(word, c->min_lanes);
  (void)__usub8(word, c->max_lanes);
  return __sel(c->max_lanes, word);
#else
  uint32_t word = tf_pack_bytes(__ssat(r0 + c->zero_point, 8), __ssat(r1 + c->zero_point, 8),
                                __ssat(r2 + c->zero_point, 8), __ssat(r3 + c->zero_point, 8));
  (void)__ssub8((int8x4_t)word, (int8x4_t)c->min_lanes);
  word = __sel(word, c->min_lanes);
  (void)__ssub8((int8x4_t)word, (int8x4_t)c->max_lanes);
  return __sel(c->max_lanes, word);
#endif
#else
  return (uint32_t)(uint8_t)dsp_clamp_output(r0, c) | (uint32_t)(uint8_t)dsp_clamp_output(r1, c) << 8 |
         (uint32_t)(uint8_t)dsp_clamp_output(r2, c) << 16 | (uint32_t)(uint8_t)dsp_clamp_output(r3, c) << 24;
#endif
}

/* Four requantised values of consecutive channels to y[0..3]: one store. */
static inline void dsp_store4(dsp_element* y, int32_t r0, int32_t r1, int32_t r2, int32_t r3, const dsp_clamp* c) {
  tf_store_u32(y, dsp_clamp4(r0, r1, r2, r3, c));
}

/* dsp_store4 for a clamp that does not narrow the type's range
 * (dsp_clamp_narrows is 0): saturated, packed and stored as one word, no
 * lane-wise clamp. */
static inline void dsp_store4_saturated(dsp_element* y, int32_t r0, int32_t r1, int32_t r2, int32_t r3,
                                        const dsp_clamp* c) {
#if TF_DSP_INTRINSICS
#if TF_DSP_UNSIGNED
  tf_store_u32(y, tf_pack_bytes((int32_t)__usat(r0 + c->zero_point, 8), (int32_t)__usat(r1 + c->zero_point, 8),
                                (int32_t)__usat(r2 + c->zero_point, 8), (int32_t)__usat(r3 + c->zero_point, 8)));
#else
  tf_store_u32(y, tf_pack_bytes(__ssat(r0 + c->zero_point, 8), __ssat(r1 + c->zero_point, 8),
                                __ssat(r2 + c->zero_point, 8), __ssat(r3 + c->zero_point, 8)));
#endif
#else
  dsp_store4(y, r0, r1, r2, r3, c);
#endif
}

/* Two requantised values of consecutive channels to y[0..1]: saturated,
 * packed and clamped lane-wise as dsp_clamp4, then one 16-bit store. */
static inline void dsp_store2(dsp_element* y, int32_t r0, int32_t r1, const dsp_clamp* c) {
#if TF_DSP_INTRINSICS
#if TF_DSP_UNSIGNED
  uint32_t word = (uint32_t)__usat(r0 + c->zero_point, 8) | (uint32_t)__usat(r1 + c->zero_point, 8) << 8;
  (void)__usub8(word, c->min_lanes);
  word = __sel(word, c->min_lanes);
  (void)__usub8(word, c->max_lanes);
  word = __sel(c->max_lanes, word);
#else
  uint32_t word = ((uint32_t)__ssat(r0 + c->zero_point, 8) & 0xffu) | (uint32_t)__ssat(r1 + c->zero_point, 8) << 8;
  (void)__ssub8((int8x4_t)word, (int8x4_t)c->min_lanes);
  word = __sel(word, c->min_lanes);
  (void)__ssub8((int8x4_t)word, (int8x4_t)c->max_lanes);
  word = __sel(c->max_lanes, word);
#endif
  {
    const uint16_t half = (uint16_t)word;
    __builtin_memcpy(y, &half, sizeof half);
  }
#else
  y[0] = dsp_clamp_output(r0, c);
  y[1] = dsp_clamp_output(r1, c);
#endif
}

/* Whether the activation's clamp is narrower than the element type's range
 * (else saturating to the type is the whole clamp). */
static inline int32_t dsp_clamp_narrows(const dsp_clamp* c) {
#if TF_DSP_UNSIGNED
  return c->min > 0 || c->max < 255;
#else
  return c->min > -128 || c->max < 127;
#endif
}

/* dsp_store2 for a clamp that does not narrow the type's range
 * (dsp_clamp_narrows is 0): saturated and stored byte by byte (packing the
 * two bytes for one 16-bit store took one instruction more). */
static inline void dsp_store2_saturated(dsp_element* y, int32_t r0, int32_t r1, const dsp_clamp* c) {
#if TF_DSP_INTRINSICS
#if TF_DSP_UNSIGNED
  y[0] = (dsp_element)__usat(r0 + c->zero_point, 8);
  y[1] = (dsp_element)__usat(r1 + c->zero_point, 8);
#else
  y[0] = (dsp_element)__ssat(r0 + c->zero_point, 8);
  y[1] = (dsp_element)__ssat(r1 + c->zero_point, 8);
#endif
#else
  y[0] = dsp_clamp_output(r0, c);
  y[1] = dsp_clamp_output(r1, c);
#endif
}

/* Four requantised values of one channel c of four pixels to y[i][c]. */
static inline void dsp_store4_strided(dsp_element* const y[4], int32_t c, int32_t r0, int32_t r1, int32_t r2,
                                      int32_t r3, const dsp_clamp* clamp) {
  const uint32_t word = dsp_clamp4(r0, r1, r2, r3, clamp);
  y[0][c] = (dsp_element)(word & 0xffu);
  y[1][c] = (dsp_element)(word >> 8 & 0xffu);
  y[2][c] = (dsp_element)(word >> 16 & 0xffu);
  y[3][c] = (dsp_element)(word >> 24);
}
