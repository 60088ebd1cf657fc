/* Template of TFLite's quantized ADD and SUB (int8 and uint8), bit for bit
 * tf_quantized_add_sub (quantized_arithmetic.h). A kernel file defines
 *   TF_KERNEL        the function name (declared in tinyfit/elementwise.h;
 *                    without it only the element arithmetic: the fused
 *                    inverted bottleneck's residual add)
 *   TF_T             int8_t or uint8_t
 *   TF_ADD_UNSIGNED  0 (int8) or 1 (uint8)
 *   TF_ADD_SUBTRACT  0 (Add) or 1 (Sub)
 * and includes this file once (no include guard, on purpose).
 *
 * TFLite computes per element s_a = MBQM((u - zp_a) << L, m_a, shift_a), s_b
 * likewise, y = clamp(MBQM(s_a +- s_b, m_y, shift_y) + zp_y). The fast loops
 * compute each MBQM(x, m, shift), when |x << max(shift, 0)| < 2^30 and
 * 2^30 <= m < 2^31, as
 *   smmlar(X, m, k) >> e,  X = x << (max(shift, 0) + 1),  e = max(-shift, 0),
 *   k = 2^(e-1) - [X < 0] for e >= 1, k = 0 for e == 0,
 * which is requantize.h's exact form with SMMLAR's rounding addend 2^31
 * (one instruction on a Cortex-M4; dsp.h gives it in C elsewhere). An input's
 * X is one multiply-add of its element (u * P - zp * P, P = 2^(L + max(shift,
 * 0) + 1)); the output zero point joins k as zp_y << e (a multiple of 2^e, so
 * the shift is unchanged). An input whose multiplier is exactly 2^30 (0.5:
 * TFLite gives it to the input of the larger scale) with
 * t = L + max(shift, 0) - 1 - e >= 0 is scaled without rounding, s = (u - zp)
 * << t, so the loop for one such input spends one multiply-add on it.
 * Bounds: |s| <= (|x|max >> e) + 1 (the high multiply does not grow |x|, the
 * rounding shift adds at most one), so the output's condition is checked from
 * the inputs' value ranges once per call (add_fast_init).
 *
 * Runs of elements contiguous in a, b and the output (whole tensors flattened,
 * channel rows of a chunk) go through the fast loops, four elements per word;
 * broadcasting along the innermost axis, or parameters outside the fast
 * form's ranges, through the generic element loop. */
#include <stddef.h>
#include <stdint.h>

#include "tinyfit/dsp.h"
#include "tinyfit/elementwise.h"
#include "tinyfit/kernel_templates/quantized_arithmetic.h"

typedef TF_T add_element;

#if TF_ADD_UNSIGNED
#define ADD_TYPE_MIN 0
#define ADD_TYPE_MAX 255
#else
#define ADD_TYPE_MIN (-128)
#define ADD_TYPE_MAX 127
#endif

/* One MBQM in the fast form; sign_mask is -1 when e >= 1, else 0. */
typedef struct add_rescale {
  int32_t multiplier, rounding, sign_mask, right_shift;
} add_rescale;

/* Everything a fast loop needs, computed once per call. In the linear loop
 * input a is the exactly scaled one (swapped with b when that is b), a_scale /
 * a_offset give its contribution to the output's X directly, and out_scale
 * carries the sign of the rescaled input. */
typedef struct add_fast {
  uint32_t a_scale, a_offset, b_scale, b_offset, out_scale;
  add_rescale a, b, out;
  uint32_t min_lanes, max_lanes;
  int32_t min, max;
  int32_t linear, swapped;
} add_fast;

static inline int32_t add_rescale_apply(int32_t x, const add_rescale* r) {
  return tf_smmlar(x, r->multiplier, r->rounding + (r->sign_mask & (x >> 31))) >> r->right_shift;
}

/* The same when e >= 1 is known (sign mask -1: one instruction less). */
static inline int32_t add_rescale_rounded(int32_t x, const add_rescale* r) {
  return tf_smmlar(x, r->multiplier, r->rounding + (x >> 31)) >> r->right_shift;
}

/* A requantised value (zero point included) saturated to the type and
 * clamped: in one byte of the result. */
static inline uint32_t add_clamp(int32_t v, const add_fast* f) {
  return (uint32_t)(uint8_t)(add_element)(v < f->min ? f->min : v > f->max ? f->max : v);
}

/* Four such values packed, value i in byte i. */
static inline uint32_t add_pack4(int32_t r0, int32_t r1, int32_t r2, int32_t r3, const add_fast* f) {
#if TF_DSP_INTRINSICS
#if TF_ADD_UNSIGNED
  uint32_t word = tf_pack_bytes((int32_t)__usat(r0, 8), (int32_t)__usat(r1, 8), (int32_t)__usat(r2, 8),
                                (int32_t)__usat(r3, 8));
  (void)__usub8(word, f->min_lanes);
  word = __sel(word, f->min_lanes);
  (void)__usub8(word, f->max_lanes);
  return __sel(f->max_lanes, word);
#else
  uint32_t word = tf_pack_bytes(__ssat(r0, 8), __ssat(r1, 8), __ssat(r2, 8), __ssat(r3, 8));
  (void)__ssub8((int8x4_t)word, (int8x4_t)f->min_lanes);
  word = __sel(word, f->min_lanes);
  (void)__ssub8((int8x4_t)word, (int8x4_t)f->max_lanes);
  return __sel(f->max_lanes, word);
#endif
#else
  return add_clamp(r0, f) | add_clamp(r1, f) << 8 | add_clamp(r2, f) << 16 | add_clamp(r3, f) << 24;
#endif
}

/* One output value (zero point included, before saturation) of elements u
 * (of a) and v (of b). */
static inline int32_t add_general_value(int32_t u, int32_t v, const add_fast* f) {
  const int32_t sa = add_rescale_apply((int32_t)((uint32_t)u * f->a_scale + f->a_offset), &f->a);
  const int32_t sb = add_rescale_apply((int32_t)((uint32_t)v * f->b_scale + f->b_offset), &f->b);
#if TF_ADD_SUBTRACT
  const uint32_t raw = (uint32_t)sa - (uint32_t)sb;
#else
  const uint32_t raw = (uint32_t)sa + (uint32_t)sb;
#endif
  return add_rescale_apply((int32_t)(raw * f->out_scale), &f->out);
}

/* The same when a is the exactly scaled input and both rescales have e >= 1. */
static inline int32_t add_linear_value(int32_t u, int32_t v, const add_fast* f) {
  const uint32_t linear = (uint32_t)u * f->a_scale + f->a_offset;
  const int32_t sb = add_rescale_rounded((int32_t)((uint32_t)v * f->b_scale + f->b_offset), &f->b);
  return add_rescale_rounded((int32_t)((uint32_t)sb * f->out_scale + linear), &f->out);
}

/* Bits 8i..8i+7 of a word as an element value. */
static inline int32_t add_byte(uint32_t word, int i) {
#if TF_ADD_UNSIGNED
  return (int32_t)(word >> (8 * i) & 0xffu);
#else
  return (int32_t)(int8_t)(uint8_t)(word >> (8 * i));
#endif
}

#ifdef TF_KERNEL
/* n contiguous elements, four per word. The parameters are copied into a
 * local first: the byte stores may alias them, so the compiler would reload
 * them otherwise. (Measured alternatives on a Cortex-M4, linear loop: one
 * element per iteration 27.6 instructions per element, two passes over
 * blocks of 16 with the inputs' stages first 24.4, this loop 22.4; the
 * constants do not all fit in registers in any of them.) */
static TF_INNER_LOOP void add_run_general(const add_element* a, const add_element* b, add_element* y, int32_t n,
                                          const add_fast* params) {
  const add_fast f = *params;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t wa = tf_load_u32(a + i), wb = tf_load_u32(b + i);
    const int32_t r0 = add_general_value(add_byte(wa, 0), add_byte(wb, 0), &f);
    const int32_t r1 = add_general_value(add_byte(wa, 1), add_byte(wb, 1), &f);
    const int32_t r2 = add_general_value(add_byte(wa, 2), add_byte(wb, 2), &f);
    const int32_t r3 = add_general_value(add_byte(wa, 3), add_byte(wb, 3), &f);
    tf_store_u32(y + i, add_pack4(r0, r1, r2, r3, &f));
  }
  for (; i < n; ++i) y[i] = (add_element)add_clamp(add_general_value(a[i], b[i], &f), &f);
}

static TF_INNER_LOOP void add_run_linear(const add_element* a, const add_element* b, add_element* y, int32_t n,
                                         const add_fast* params) {
  const add_fast f = *params;
  int32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const uint32_t wa = tf_load_u32(a + i), wb = tf_load_u32(b + i);
    const int32_t r0 = add_linear_value(add_byte(wa, 0), add_byte(wb, 0), &f);
    const int32_t r1 = add_linear_value(add_byte(wa, 1), add_byte(wb, 1), &f);
    const int32_t r2 = add_linear_value(add_byte(wa, 2), add_byte(wb, 2), &f);
    const int32_t r3 = add_linear_value(add_byte(wa, 3), add_byte(wb, 3), &f);
    tf_store_u32(y + i, add_pack4(r0, r1, r2, r3, &f));
  }
  for (; i < n; ++i) y[i] = (add_element)add_clamp(add_linear_value(a[i], b[i], &f), &f);
}

static void add_run(const add_element* a, const add_element* b, add_element* y, int32_t n, const add_fast* f) {
  if (f->linear) {
    add_run_linear(a, b, y, n, f);
  } else {
    add_run_general(a, b, y, n, f);
  }
}

#endif /* TF_KERNEL */

/* The fast form of one MBQM whose argument is bounded by max_abs (< 2^30 after
 * the left shift): 0 when the multiplier or shift is outside it. */
static int add_rescale_init(int64_t max_abs, int32_t multiplier, int32_t shift, add_rescale* r) {
  const int32_t left = shift > 0 ? shift : 0;
  const int32_t e = shift < 0 ? -shift : 0;
  if (multiplier < (1 << 30) || left > 30 || e > 31 || max_abs >= ((int64_t)1 << 30) >> left) return 0;
  r->multiplier = multiplier;
  r->right_shift = e;
  r->rounding = e > 0 ? (int32_t)((uint32_t)1 << (e - 1)) : 0;
  r->sign_mask = e > 0 ? -1 : 0;
  return 1;
}

/* An input's stage: X = u * scale + offset = (u - zero_point) << (L + left +
 * 1); sets *bound to the bound of |s|. */
static int add_input_init(int32_t zero_point, int32_t left_shift, int32_t multiplier, int32_t shift,
                          uint32_t* scale, uint32_t* offset, add_rescale* r, int64_t* bound) {
  const int64_t low = (int64_t)ADD_TYPE_MIN - zero_point, high = (int64_t)ADD_TYPE_MAX - zero_point;
  const int64_t max_abs = (low < 0 ? -low : low) > (high < 0 ? -high : high) ? (low < 0 ? -low : low)
                                                                             : (high < 0 ? -high : high);
  const int32_t left = shift > 0 ? shift : 0;
  if (left_shift < 0 || left_shift > 30 || !add_rescale_init(max_abs << left_shift, multiplier, shift, r)) return 0;
  *scale = (uint32_t)1 << (left_shift + left + 1);
  *offset = (uint32_t)0 - (uint32_t)zero_point * *scale;
  *bound = ((max_abs << (left_shift + left)) >> r->right_shift) + 1;
  return 1;
}

/* The exponent t of an exactly scaled input (s = (u - zp) << t), or -1. */
static int32_t add_linear_exponent(int32_t left_shift, int32_t multiplier, int32_t shift) {
  const int32_t left = shift > 0 ? shift : 0;
  const int32_t e = shift < 0 ? -shift : 0;
  return multiplier == (1 << 30) && left_shift + left - 1 - e >= 0 ? left_shift + left - 1 - e : -1;
}

static int add_fast_init(const tf_quantized_add_params* p, add_fast* f) {
  int64_t bound_a, bound_b;
  int32_t out_left, t_a, t_b;
  if (p->output_min < ADD_TYPE_MIN || p->output_max > ADD_TYPE_MAX || p->output_min > p->output_max) return 0;
  if (!add_input_init(p->a_zero_point, p->left_shift, p->a_multiplier, p->a_shift, &f->a_scale, &f->a_offset, &f->a,
                      &bound_a) ||
      !add_input_init(p->b_zero_point, p->left_shift, p->b_multiplier, p->b_shift, &f->b_scale, &f->b_offset, &f->b,
                      &bound_b) ||
      !add_rescale_init(bound_a + bound_b, p->output_multiplier, p->output_shift, &f->out) || f->out.right_shift > 22) {
    return 0;
  }
  out_left = p->output_shift > 0 ? p->output_shift : 0;
  f->out_scale = (uint32_t)1 << (out_left + 1);
  f->out.rounding += (int32_t)((uint32_t)p->output_zero_point << f->out.right_shift);
  f->min = p->output_min;
  f->max = p->output_max;
  f->min_lanes = ((uint32_t)p->output_min & 0xffu) * 0x01010101u;
  f->max_lanes = ((uint32_t)p->output_max & 0xffu) * 0x01010101u;
  f->linear = 0;
  f->swapped = 0;
  if (f->out.right_shift == 0) return 1;
  t_a = add_linear_exponent(p->left_shift, p->a_multiplier, p->a_shift);
  t_b = add_linear_exponent(p->left_shift, p->b_multiplier, p->b_shift);
  if (t_a >= 0 && f->b.right_shift > 0 && out_left + 1 + t_a <= 30) {
    f->linear = 1;
    f->a_scale = f->out_scale << t_a;
    f->a_offset = (uint32_t)0 - (uint32_t)p->a_zero_point * f->a_scale;
    f->out_scale = TF_ADD_SUBTRACT ? (uint32_t)0 - f->out_scale : f->out_scale;
  } else if (t_b >= 0 && f->a.right_shift > 0 && out_left + 1 + t_b <= 30) {
    /* b is the exactly scaled one: it takes a's place, with Sub's sign. */
    const uint32_t b_scale = f->out_scale << t_b;
    f->linear = 1;
    f->swapped = 1;
    f->a_scale = TF_ADD_SUBTRACT ? (uint32_t)0 - b_scale : b_scale;
    f->a_offset = (uint32_t)0 - (uint32_t)p->b_zero_point * f->a_scale;
    f->b_scale = (uint32_t)1 << (p->left_shift + (p->a_shift > 0 ? p->a_shift : 0) + 1);
    f->b_offset = (uint32_t)0 - (uint32_t)p->a_zero_point * f->b_scale;
    f->b = f->a;
  }
  return 1;
}

#ifdef TF_KERNEL
/* Element by element, any strides and broadcasting: TFLite's arithmetic as
 * written. */
static void add_generic(const tf_view* a, const tf_view* b, const tf_view* output,
                        const tf_quantized_add_params* params) {
  const add_element* a_data = (const add_element*)a->data;
  const add_element* b_data = (const add_element*)b->data;
  add_element* y_data = (add_element*)output->data;
  int32_t a_strides[4], b_strides[4];
  int32_t d, n, h, w, c;
  for (d = 0; d < 4; ++d) {
    a_strides[d] = a->shape[d] == 1 ? 0 : a->strides[d];
    b_strides[d] = b->shape[d] == 1 ? 0 : b->strides[d];
  }
  for (n = 0; n < output->shape[0]; ++n) {
    for (h = 0; h < output->shape[1]; ++h) {
      for (w = 0; w < output->shape[2]; ++w) {
        const ptrdiff_t a_row = (ptrdiff_t)n * a_strides[0] + (ptrdiff_t)h * a_strides[1] + (ptrdiff_t)w * a_strides[2];
        const ptrdiff_t b_row = (ptrdiff_t)n * b_strides[0] + (ptrdiff_t)h * b_strides[1] + (ptrdiff_t)w * b_strides[2];
        const ptrdiff_t y_row = (ptrdiff_t)n * output->strides[0] + (ptrdiff_t)h * output->strides[1] +
                                (ptrdiff_t)w * output->strides[2];
        for (c = 0; c < output->shape[3]; ++c) {
          y_data[y_row + (ptrdiff_t)c * output->strides[3]] = (add_element)tf_quantized_add_sub(
              a_data[a_row + (ptrdiff_t)c * a_strides[3]], b_data[b_row + (ptrdiff_t)c * b_strides[3]], params,
              TF_ADD_SUBTRACT);
        }
      }
    }
  }
}

/* The innermost axes [first, 4) along which a, b and the output are one
 * contiguous run of elements, none broadcast; returns the run's length (0
 * when not even the channel axis is such a run) and sets *first. */
static int32_t add_contiguous_run(const tf_view* a, const tf_view* b, const tf_view* output, int32_t* first) {
  int32_t run = 1, d;
  for (d = 3; d >= 0; --d) {
    const int32_t extent = output->shape[d];
    if (extent != 1 && (a->shape[d] != extent || b->shape[d] != extent || a->strides[d] != run ||
                        b->strides[d] != run || output->strides[d] != run)) {
      break;
    }
    run *= extent;
  }
  *first = d + 1;
  return d == 3 ? 0 : run;
}

void TF_KERNEL(const tf_view* a, const tf_view* b, const tf_view* output, const tf_quantized_add_params* params) {
  add_fast f;
  int32_t first, d, n, h, w, extents[3], a_strides[3], b_strides[3];
  const int32_t run = add_contiguous_run(a, b, output, &first);
  const add_element* a_data = (const add_element*)a->data;
  const add_element* b_data = (const add_element*)b->data;
  add_element* y_data = (add_element*)output->data;
  if (run == 0 || !add_fast_init(params, &f)) {
    add_generic(a, b, output, params);
    return;
  }
  if (f.swapped) {
    const add_element* t = a_data;
    a_data = b_data;
    b_data = t;
  }
  for (d = 0; d < 3; ++d) {
    const tf_view* va = f.swapped ? b : a;
    const tf_view* vb = f.swapped ? a : b;
    extents[d] = d < first ? output->shape[d] : 1;
    a_strides[d] = va->shape[d] == 1 ? 0 : va->strides[d];
    b_strides[d] = vb->shape[d] == 1 ? 0 : vb->strides[d];
  }
  for (n = 0; n < extents[0]; ++n) {
    for (h = 0; h < extents[1]; ++h) {
      for (w = 0; w < extents[2]; ++w) {
        const add_element* a_run =
            a_data + (ptrdiff_t)n * a_strides[0] + (ptrdiff_t)h * a_strides[1] + (ptrdiff_t)w * a_strides[2];
        const add_element* b_run =
            b_data + (ptrdiff_t)n * b_strides[0] + (ptrdiff_t)h * b_strides[1] + (ptrdiff_t)w * b_strides[2];
        add_element* y_run = y_data + (ptrdiff_t)n * output->strides[0] + (ptrdiff_t)h * output->strides[1] +
                             (ptrdiff_t)w * output->strides[2];
        add_run(a_run, b_run, y_run, run, &f);
      }
    }
  }
}
#endif
