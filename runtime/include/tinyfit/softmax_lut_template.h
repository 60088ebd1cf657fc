/* The body of tf_qs8_softmax_lut and tf_qu8_softmax_lut, written once: a
 * kernel file defines TF_SOFTMAX_NAME (the function), TF_SOFTMAX_ELEMENT
 * (int8_t or uint8_t) and TF_SOFTMAX_MIN / _MAX (the element's range), then
 * includes this header. A header rather than a .inc so that generated code
 * ships it with the other runtime headers.
 *
 * The fixed-point steps after the exp are gemmlowp's, ported from the
 * reference interpreter (src/exec/reference/fixed_point.cc) operation for
 * operation on top of tinyfit/fixed_point.h: int32 wrap-around through
 * uint32, 64-bit products, division truncating toward zero. */
#include "tinyfit/fixed_point.h"
#include "tinyfit/normalization.h"

/* RoundingDivideByPOT for any exponent >= 0: from 32 on (a softmax row of
 * thousands of near-equal values) the correctly rounded quotient of an int32
 * is 0, where a C shift would be undefined. */
static int32_t tf_softmax_rounding_divide_by_pot(int32_t x, int32_t exponent) {
  return exponent > 31 ? 0 : tf_rounding_divide_by_pot(x, exponent);
}

/* gemmlowp SaturatingRoundingMultiplyByPOT for exponents 1 and 2. */
static int32_t tf_softmax_saturating_shift_left(int32_t x, int exponent) {
  const int32_t threshold = (int32_t)(((int64_t)1 << (31 - exponent)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return (int32_t)((uint32_t)x << exponent);
}

static int32_t tf_softmax_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static int32_t tf_softmax_subtract(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }

/* gemmlowp one_over_one_plus_x_for_x_in_0_1: Newton-Raphson in values with
 * 2 integer bits. */
static int32_t tf_softmax_one_over_one_plus_x(int32_t x) {
  const int64_t sum = (int64_t)x + INT32_MAX;
  const int32_t half_denominator = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
  const int32_t constant_48_over_17 = 1515870810;
  const int32_t constant_neg_32_over_17 = -1010580540;
  const int32_t one_with_2_integer_bits = 1 << 29;
  int32_t y = tf_softmax_add(constant_48_over_17,
                             tf_saturating_rounding_doubling_high_mul(half_denominator, constant_neg_32_over_17));
  int i;
  for (i = 0; i < 3; ++i) {
    const int32_t one_minus = tf_softmax_subtract(one_with_2_integer_bits,
                                                  tf_saturating_rounding_doubling_high_mul(half_denominator, y));
    y = tf_softmax_add(y,
                       tf_softmax_saturating_shift_left(tf_saturating_rounding_doubling_high_mul(y, one_minus), 2));
  }
  return tf_softmax_saturating_shift_left(y, 1);
}

/* TFLite GetReciprocal: 1 / x for x > 0 with `x_integer_bits` integer bits,
 * a Q0.31 value scaled by 2^-num_bits_over_unit. */
static int32_t tf_softmax_reciprocal(int32_t x, int x_integer_bits, int* num_bits_over_unit) {
  int headroom_plus_one = 0;
  while (((uint32_t)x << headroom_plus_one & 0x80000000u) == 0) ++headroom_plus_one;
  *num_bits_over_unit = x_integer_bits - headroom_plus_one;
  return tf_softmax_one_over_one_plus_x(
      (int32_t)(((uint32_t)x << headroom_plus_one) - ((uint32_t)1 << 31)));
}

void TF_SOFTMAX_NAME(const tf_view* input, const tf_view* output, const tf_softmax_lut_params* params) {
  enum { kAccumulationIntegerBits = 12 };
  const int axis = params->axis;
  const int32_t depth = input->shape[axis];
  const size_t in_step = (size_t)input->strides[axis];
  const size_t out_step = (size_t)output->strides[axis];
  const int32_t* table = params->exp_table;
  int other[3];
  int k = 0, d;
  int32_t i0, i1, i2, j;
  for (d = 0; d < 4; ++d) {
    if (d != axis) other[k++] = d;
  }
  if (depth == 0) return; /* an empty row has no maximum to read */
  for (i0 = 0; i0 < input->shape[other[0]]; ++i0) {
    for (i1 = 0; i1 < input->shape[other[1]]; ++i1) {
      for (i2 = 0; i2 < input->shape[other[2]]; ++i2) {
        const TF_SOFTMAX_ELEMENT* x =
            (const TF_SOFTMAX_ELEMENT*)input->data + (size_t)i0 * (size_t)input->strides[other[0]] +
            (size_t)i1 * (size_t)input->strides[other[1]] + (size_t)i2 * (size_t)input->strides[other[2]];
        TF_SOFTMAX_ELEMENT* y =
            (TF_SOFTMAX_ELEMENT*)output->data + (size_t)i0 * (size_t)output->strides[other[0]] +
            (size_t)i1 * (size_t)output->strides[other[1]] + (size_t)i2 * (size_t)output->strides[other[2]];
        int32_t max = x[0];
        int32_t sum_of_exps = 0; /* Q12.19 */
        int32_t shifted_scale;
        int num_bits_over_unit = 0;
        for (j = 1; j < depth; ++j) {
          if (x[(size_t)j * in_step] > max) max = x[(size_t)j * in_step];
        }
        for (j = 0; j < depth; ++j) {
          /* exp (Q0.31) to Q12.19: SaturatingRoundingMultiplyByPOT<-12>. */
          sum_of_exps +=
              tf_softmax_rounding_divide_by_pot(table[max - x[(size_t)j * in_step]], kAccumulationIntegerBits);
        }
        shifted_scale = tf_softmax_reciprocal(sum_of_exps, kAccumulationIntegerBits, &num_bits_over_unit);
        /* Each x is read before its own y is written: in place is safe. */
        for (j = 0; j < depth; ++j) {
          const int32_t e = table[max - x[(size_t)j * in_step]];
          int32_t q = tf_softmax_rounding_divide_by_pot(tf_saturating_rounding_doubling_high_mul(shifted_scale, e),
                                                        num_bits_over_unit + 31 - 8) +
                      TF_SOFTMAX_MIN;
          if (q < TF_SOFTMAX_MIN) q = TF_SOFTMAX_MIN;
          if (q > TF_SOFTMAX_MAX) q = TF_SOFTMAX_MAX;
          y[(size_t)j * out_step] = (TF_SOFTMAX_ELEMENT)q;
        }
      }
    }
  }
}
