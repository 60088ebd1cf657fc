/* The quantized element arithmetic of the conv-family kernels, shared by
 * int8 (qs8) and uint8 (qu8): the including file defines TF_CONV_ELEMENT
 * (int8_t or uint8_t, activations and weights alike). Sums are int32 values
 * kept in wrapping uint32 arithmetic.
 * Included once per kernel file; everything is static inline. */
#include <stddef.h>
#include <stdint.h>

#include "tinyfit/fixed_point.h"

static inline int32_t conv_clamp(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : x > hi ? hi : x; }

/* round(x * multiplier * 2^(shift - 31 + extra_bits)) in 64 bits, halves away
 * from zero, saturated to int32: the update of a 16- or 8-bit accumulator
 * (conv.h). Not TFLite arithmetic: reduced-precision accumulators are not exact. */
static inline int32_t conv_scale_to_accumulator(int32_t x, int32_t multiplier, int32_t shift, int32_t extra_bits) {
  const int64_t product = (int64_t)x * (int64_t)multiplier; /* |product| <= 2^62 */
  const int32_t right = 31 - shift - extra_bits;
  int64_t result;
  if (right <= 0) {
    const int64_t limit = (int64_t)INT32_MAX >> -right;
    result = product > limit ? INT32_MAX : product < -limit ? INT32_MIN : product * ((int64_t)1 << -right);
  } else if (right >= 62) {
    result = 0;
  } else {
    const int64_t half = (int64_t)1 << (right - 1);
    result = product >= 0 ? (product + half) >> right : -((-product + half) >> right);
  }
  return result > INT32_MAX ? INT32_MAX : result < INT32_MIN ? INT32_MIN : (int32_t)result;
}

typedef TF_CONV_ELEMENT conv_element;
typedef TF_CONV_ELEMENT conv_weight;
/* Sums wrap in 32 bits: unsigned, so that no overflow is undefined; read back
 * as int32 they are TFLite's int32 sums. */
typedef uint32_t conv_sum;
#define CONV_HAS_OFFSETS 1

static inline conv_sum conv_widen_element(conv_element x) { return (conv_sum)(int32_t)x; }
static inline conv_sum conv_widen_weight(conv_weight w) { return (conv_sum)(int32_t)w; }

/* (x + x_offset) * (w + w_offset), for kernels that keep the offsets inside. */
static inline conv_sum conv_product(conv_element x, conv_weight w, int32_t x_offset, int32_t w_offset) {
  return (conv_sum)(((int32_t)x + x_offset) * ((int32_t)w + w_offset));
}

/* What the zero points add to sum x*w over `terms` products:
 * x_offset * sum w + w_offset * sum x + terms * x_offset * w_offset. */
static inline conv_sum conv_offset_terms(conv_sum x_sum, conv_sum w_sum, int32_t terms, int32_t x_offset,
                                         int32_t w_offset) {
  return (conv_sum)x_offset * w_sum + (conv_sum)w_offset * x_sum + (conv_sum)terms * (conv_sum)x_offset * (conv_sum)w_offset;
}

/* bias, requantisation, output zero point, clamp. */
static inline void conv_store_output(void* output, ptrdiff_t index, conv_sum sum, int32_t channel,
                                     const tf_conv_params* p) {
  const int32_t biased = (int32_t)(sum + (conv_sum)((const int32_t*)p->bias)[channel]);
  const int32_t value = tf_multiply_by_quantized_multiplier(biased, p->multiplier[channel], p->shift[channel]) + p->output_offset;
  ((conv_element*)output)[index] = (conv_element)conv_clamp(value, p->activation_min, p->activation_max);
}

/* 32 bits: exact int32 sums. 16 / 8 bits: conv.h's reduced-precision units. */
static inline void conv_store_accumulator(void* accumulator, ptrdiff_t index, conv_sum sum, int32_t channel,
                                          const tf_conv_params* p, int32_t bits, int32_t first) {
  if (bits == 32) {
    int32_t* a = (int32_t*)accumulator + index;
    *a = (int32_t)(first ? sum : (conv_sum)*a + sum);
    return;
  }
  const int32_t part = conv_scale_to_accumulator((int32_t)sum, p->multiplier[channel], p->shift[channel], bits - 8);
  if (bits == 16) {
    int16_t* a = (int16_t*)accumulator + index;
    const int64_t total = (int64_t)part + (first ? 0 : *a);
    *a = (int16_t)(total > INT16_MAX ? INT16_MAX : total < INT16_MIN ? INT16_MIN : total);
  } else {
    int8_t* a = (int8_t*)accumulator + index;
    const int64_t total = (int64_t)part + (first ? 0 : *a);
    *a = (int8_t)(total > INT8_MAX ? INT8_MAX : total < INT8_MIN ? INT8_MIN : total);
  }
}

static inline void conv_finalize_element(const void* accumulator, ptrdiff_t a_index, void* output,
                                         ptrdiff_t o_index, int32_t channel, const tf_conv_params* p,
                                         int32_t bits) {
  if (bits == 32) {
    conv_store_output(output, o_index, (conv_sum)((const int32_t*)accumulator)[a_index], channel, p);
    return;
  }
  const int32_t bias = conv_scale_to_accumulator(((const int32_t*)p->bias)[channel], p->multiplier[channel],
                                                 p->shift[channel], bits - 8);
  const int32_t held = bits == 16 ? ((const int16_t*)accumulator)[a_index] : ((const int8_t*)accumulator)[a_index];
  const int64_t total = (int64_t)held + bias;
  const int32_t sum = (int32_t)(total > INT32_MAX ? INT32_MAX : total < INT32_MIN ? INT32_MIN : total);
  const int32_t value = tf_rounding_divide_by_pot(sum, bits - 8) + p->output_offset;
  ((conv_element*)output)[o_index] = (conv_element)conv_clamp(value, p->activation_min, p->activation_max);
}
