/* Dot products of contiguous int8 / uint8 rows with 16-bit lanes, straight
 * from the input (no workspace), over conv_dsp_arithmetic.h (included first):
 * the 1x1 Conv2D (a row is a pixel's channels) and FullyConnected (a row is
 * a batch row's features). The including file defines TF_POINTWISE_DSP,
 * TF_POINTWISE_DSP_ROWS, TF_POINTWISE_DSP_ACCUMULATE, TF_FC_DSP or
 * TF_FC_DSP_ACCUMULATE.
 *
 * One row against four output channels at a time (dot_dsp_row4), then a
 * pair and a single one (dot_dsp_1x2): each group of four inputs is loaded
 * and widened once for the four channels, each channel's four weights loaded
 * and widened once, eight inputs a step (per 32 MACs: two loads and four
 * widenings of the inputs, eight weight loads, sixteen widenings and sixteen
 * SMLADs: 46, and the loop's eight: 54 with GCC 12 -O2, 1.69 per MAC,
 * with no workspace; the pairs took 17 per 8 MACs, 2.1). Four channels' results are
 * requantised and stored as one word. Weights are the IR layout w[Cout][Cin]
 * / w[Out][In]. */

#include "tinyfit/kernel_templates/dot_dsp_step.h"

/* One group of four inputs of x against the four weight rows w[0..3], at
 * element `at` of each. */
#define DOT_DSP_1X4_STEP(x, w, at)                                          \
  {                                                                        \
    const uint32_t xw = tf_load_u32((x) + (at));                           \
    const uint32_t x_even = dsp_widen_even(xw, x_offset_lanes);            \
    const uint32_t x_odd = dsp_widen_odd(xw, x_offset_lanes);              \
    uint32_t ww = tf_load_u32((w)[0] + (at));                              \
    a0 = tf_smlad(x_even, dsp_widen_weights_even(ww, w_offset_lanes), a0); \
    a0 = tf_smlad(x_odd, dsp_widen_weights_odd(ww, w_offset_lanes), a0);   \
    ww = tf_load_u32((w)[1] + (at));                                       \
    a1 = tf_smlad(x_even, dsp_widen_weights_even(ww, w_offset_lanes), a1); \
    a1 = tf_smlad(x_odd, dsp_widen_weights_odd(ww, w_offset_lanes), a1);   \
    ww = tf_load_u32((w)[2] + (at));                                       \
    a2 = tf_smlad(x_even, dsp_widen_weights_even(ww, w_offset_lanes), a2); \
    a2 = tf_smlad(x_odd, dsp_widen_weights_odd(ww, w_offset_lanes), a2);   \
    ww = tf_load_u32((w)[3] + (at));                                       \
    a3 = tf_smlad(x_even, dsp_widen_weights_even(ww, w_offset_lanes), a3); \
    a3 = tf_smlad(x_odd, dsp_widen_weights_odd(ww, w_offset_lanes), a3);   \
  }

/* acc[j] += x . w[j] for j = 0..3 over `count` elements, a multiple of
 * eight (offsets added), eight inputs a step. Each weight row has a pointer
 * of its own (with one pointer and the strides in registers GCC 12 spilled
 * the strides), and the loop has a function of its own without
 * pre-allocation scheduling (TF_INNER_LOOP): with the tails in the same
 * function GCC spilled 6 more values per step. */
TF_INNER_LOOP static void dot_dsp_1x4x8(const dsp_element* x, const dsp_element* const w[4], int32_t count,
                                        uint32_t x_offset_lanes, uint32_t w_offset_lanes, int32_t acc[4]) {
  const dsp_element* const x_end = x + count;
  const dsp_element *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3];
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  for (; x < x_end; x += 8, w0 += 8, w1 += 8, w2 += 8, w3 += 8) {
    const dsp_element* const rows[4] = {w0, w1, w2, w3};
    DOT_DSP_1X4_STEP(x, rows, 0)
    DOT_DSP_1X4_STEP(x, rows, 4)
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* acc[j] += x . (w + j * w_stride) for j = 0..3 over `count` elements
 * (offsets added): dot_dsp_1x4x8 over the multiple of eight, then four
 * inputs, then one by one. */
static inline void dot_dsp_row4(const dsp_element* x, const dsp_element* w, ptrdiff_t w_stride, int32_t count,
                               int32_t x_offset, int32_t w_offset, int32_t acc[4]) {
  const uint32_t x_offset_lanes = tf_splat_lanes(x_offset), w_offset_lanes = tf_splat_lanes(w_offset);
  const int32_t head = count & ~7;
  const dsp_element* rows[4];
  int32_t a0, a1, a2, a3, i, j;
  for (j = 0; j < 4; ++j) rows[j] = w + j * w_stride;
  if (head > 0) dot_dsp_1x4x8(x, rows, head, x_offset_lanes, w_offset_lanes, acc);
  a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  i = head;
  if (count - i >= 4) {
    DOT_DSP_1X4_STEP(x, rows, i)
    i += 4;
  }
  for (; i < count; ++i) {
    const int32_t xv = dsp_widen(x[i], x_offset);
    a0 += xv * dsp_widen(rows[0][i], w_offset);
    a1 += xv * dsp_widen(rows[1][i], w_offset);
    a2 += xv * dsp_widen(rows[2][i], w_offset);
    a3 += xv * dsp_widen(rows[3][i], w_offset);
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}
#undef DOT_DSP_1X4_STEP

/* Output channels [out_begin, out_end) of one row: x (count elements) against
 * weight rows weights + c * w_stride, stored at y[c - out_begin]
 * requantised, or added to the int32/16/8 accumulators a + c (accumulate).
 * Four channels at a time, then a pair and a single one. Out of line, so
 * that the callers' loops leave the registers to it. */
TF_INNER_LOOP static void dot_dsp_row(const dsp_element* x, int32_t count, const dsp_element* weights,
                                      ptrdiff_t w_stride, int32_t out_begin, int32_t out_end, const tf_conv_params* p,
                                      const dsp_clamp* clamp, dsp_element* y, void* accumulator, ptrdiff_t a_index,
                                      int32_t bits, int32_t first) {
  const int32_t* bias = (const int32_t*)p->bias;
  int32_t c = out_begin;
  for (; out_end - c >= 4; c += 4) {
    int32_t acc[4];
    int32_t j;
    for (j = 0; j < 4; ++j) acc[j] = accumulator ? 0 : bias[c + j];
    dot_dsp_row4(x, weights + c * w_stride, w_stride, count, p->input_offset, p->weight_offset, acc);
    if (accumulator) {
      for (j = 0; j < 4; ++j) conv_store_accumulator(accumulator, a_index + c + j, (conv_sum)acc[j], c + j, p, bits, first);
    } else {
      dsp_store4(y + (c - out_begin), tf_requantize(acc[0], &p->requant[c]), tf_requantize(acc[1], &p->requant[c + 1]),
                 tf_requantize(acc[2], &p->requant[c + 2]), tf_requantize(acc[3], &p->requant[c + 3]), clamp);
    }
  }
  for (; c < out_end; c += 2) {
    const int32_t pair = out_end - c >= 2;
    const dsp_element* w0 = weights + c * w_stride;
    int32_t acc[2];
    acc[0] = accumulator ? 0 : bias[c];
    acc[1] = accumulator || !pair ? 0 : bias[c + 1];
    dot_dsp_1x2(x, w0, pair ? w0 + w_stride : w0, count, p->input_offset, p->weight_offset, acc);
    if (accumulator) {
      conv_store_accumulator(accumulator, a_index + c, (conv_sum)acc[0], c, p, bits, first);
      if (pair) conv_store_accumulator(accumulator, a_index + c + 1, (conv_sum)acc[1], c + 1, p, bits, first);
    } else {
      y[c - out_begin] = dsp_requantize(acc[0], &p->requant[c], clamp);
      if (pair) y[c + 1 - out_begin] = dsp_requantize(acc[1], &p->requant[c + 1], clamp);
    }
  }
}

/* 1x1 Conv2D, no padding: every pixel of `output` (its (0, 0) the node's
 * output (out_row, out_col); the input view's (0, 0) the node's input
 * (in_row, in_col)), its input pixel's channels (the view's, the node's from
 * in_begin) as one row. */
static inline void pointwise_dsp_run(const tf_view* input, const tf_view* output, const tf_conv_params* p,
                                     int32_t out_begin, int32_t out_end, int32_t out_row, int32_t in_row,
                                     int32_t out_col, int32_t in_col, int32_t accumulate, int32_t in_begin,
                                     int32_t bits, int32_t first) {
  const dsp_clamp clamp = dsp_make_clamp(p);
  const dsp_element* weights = (const dsp_element*)p->weights + (accumulate ? in_begin : 0);
  int32_t n, oy, ox;
  for (n = 0; n < output->shape[0]; ++n) {
    for (oy = 0; oy < output->shape[1]; ++oy) {
      const dsp_element* x_row = (const dsp_element*)input->data + (ptrdiff_t)n * input->strides[0] +
                                 (ptrdiff_t)((out_row + oy) * p->stride_h - in_row) * input->strides[1];
      for (ox = 0; ox < output->shape[2]; ++ox) {
        const ptrdiff_t y_at =
            (ptrdiff_t)n * output->strides[0] + (ptrdiff_t)oy * output->strides[1] + (ptrdiff_t)ox * output->strides[2];
        dot_dsp_row(x_row + (ptrdiff_t)((out_col + ox) * p->stride_w - in_col) * input->strides[2], input->shape[3],
                    weights, p->in_channels,
                    out_begin, out_end, p, &clamp, (dsp_element*)output->data + y_at,
                    accumulate ? output->data : (void*)0, y_at, bits, first);
      }
    }
  }
}

/* FullyConnected on an output [B, Out] (shape {1, 1, B, Out}): the input's
 * rows are its pixels (In = C), (n, h) rows (In = W * C) or images
 * (In = H * W * C), their features contiguous (the compiler checked the
 * view); an accumulate call's rows are pixels (In = C). */
static inline void fc_dsp_run(const tf_view* input, const tf_view* output, const tf_conv_params* p, int32_t out_begin,
                              int32_t out_end, int32_t accumulate, int32_t in_begin, int32_t bits, int32_t first) {
  const dsp_clamp clamp = dsp_make_clamp(p);
  const dsp_element* weights = (const dsp_element*)p->weights + (accumulate ? in_begin : 0);
  const int32_t positions = p->in_features / p->in_channels;
  const int32_t per_image = positions == 1                 ? input->shape[1] * input->shape[2]
                            : positions == input->shape[2] ? input->shape[1]
                                                           : 1;
  const int32_t count = accumulate ? input->shape[3] : p->in_features;
  const int32_t rows = output->shape[2];
  int32_t r;
  for (r = 0; r < rows; ++r) {
    const int32_t n = r / per_image, within = r % per_image;
    const dsp_element* x = (const dsp_element*)input->data + (ptrdiff_t)n * input->strides[0];
    const ptrdiff_t y_at = (ptrdiff_t)r * output->strides[2];
    if (positions == 1) {
      x += (ptrdiff_t)(within / input->shape[2]) * input->strides[1] +
           (ptrdiff_t)(within % input->shape[2]) * input->strides[2];
    } else if (per_image > 1) {
      x += (ptrdiff_t)within * input->strides[1];
    }
    dot_dsp_row(x, count, weights, p->in_features, out_begin, out_end, p, &clamp, (dsp_element*)output->data + y_at,
                accumulate ? output->data : (void*)0, y_at, bits, first);
  }
}

#ifdef TF_POINTWISE_DSP
void TF_POINTWISE_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* params, int32_t out_begin,
                      int32_t out_end) {
  pointwise_dsp_run(input, output, params, out_begin, out_end, 0, 0, 0, 0, 0, 0, 32, 1);
}
#endif

#ifdef TF_POINTWISE_DSP_ROWS
/* The part of the output its view shows (rows, cols and channels from its
 * origin) from the input rows and cols the input view shows (all channels). */
void TF_POINTWISE_DSP_ROWS(const tf_view* input, const tf_view* output, const tf_conv_params* params) {
  pointwise_dsp_run(input, output, params, output->origin[3], output->origin[3] + output->shape[3],
                    output->origin[1], input->origin[1], output->origin[2], input->origin[2], 0, 0, 32, 1);
}
#endif

#ifdef TF_POINTWISE_DSP_ACCUMULATE
void TF_POINTWISE_DSP_ACCUMULATE(const tf_view* input, const tf_view* accumulator, const tf_conv_params* params,
                                 int32_t in_begin, int32_t accumulator_bits, int32_t first_iteration) {
  pointwise_dsp_run(input, accumulator, params, 0, params->out_channels, 0, 0, 0, 0, 1, in_begin,
                    accumulator_bits, first_iteration);
}
#endif

#ifdef TF_FC_DSP
void TF_FC_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* params, int32_t out_begin,
               int32_t out_end) {
  fc_dsp_run(input, output, params, out_begin, out_end, 0, 0, 32, 1);
}
#endif

#ifdef TF_FC_DSP_ACCUMULATE
void TF_FC_DSP_ACCUMULATE(const tf_view* input, const tf_view* accumulator, const tf_conv_params* params,
                          int32_t in_begin, int32_t accumulator_bits, int32_t first_iteration) {
  fc_dsp_run(input, accumulator, params, 0, params->out_channels, 1, in_begin, accumulator_bits, first_iteration);
}
#endif
