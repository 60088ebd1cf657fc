/* The fused inverted bottleneck's expand of two mid pixels at once
 * (inverted_bottleneck_segment_dsp.h), over conv_dsp_arithmetic.h (included
 * first): the two pixels' inputs widened once into 16-bit lanes with the input
 * offset added (conv2d_im2col_dsp.h's columns, two pixels wide), then two
 * output channels at a time against both. Per group of four inputs: two
 * weight loads and four widenings shared by the pixels, two 64-bit column
 * loads shared by the channels, eight SMLADs. */
#ifndef TINYFIT_KERNEL_TEMPLATES_DOT_DSP_PAIR_H_
#define TINYFIT_KERNEL_TEMPLATES_DOT_DSP_PAIR_H_

/* Pixel p's group j of four inputs as the 64-bit word 2 * j + p of `columns`:
 * its even and odd elements widened (offset added) in the low and high halves.
 * The first count & ~3 inputs of x0 and x1 (a caller whose inputs are padded
 * to a group of four passes the padded count). */
static inline void dot_dsp_pair_widen(const dsp_element* x0, const dsp_element* x1, int32_t count,
                                      uint32_t x_offset_lanes, uint64_t* columns) {
  const dsp_element* const x_end = x0 + (count & ~3);
  for (; x0 < x_end; x0 += 4, x1 += 4, columns += 2) {
    const uint32_t xw0 = tf_load_u32(x0), xw1 = tf_load_u32(x1);
    columns[0] = dsp_widen_column_word(xw0, x_offset_lanes);
    columns[1] = dsp_widen_column_word(xw1, x_offset_lanes);
  }
}

/* acc[2 * p + j] += column p . weights w[j] over `groups` groups of four, for
 * the two pixels p and the two channels j. */
static inline void dot_dsp_pair_2x2(const uint64_t* columns, const dsp_element* w0, const dsp_element* w1,
                                    int32_t groups, uint32_t w_offset_lanes, int32_t acc[4]) {
  int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
  const dsp_element* const w_end = w0 + groups * 4;
  for (; w0 < w_end; w0 += 4, w1 += 4, columns += 2) {
    const uint32_t ww0 = tf_load_u32(w0), ww1 = tf_load_u32(w1);
    const uint32_t even0 = dsp_widen_weights_even(ww0, w_offset_lanes);
    const uint32_t even1 = dsp_widen_weights_even(ww1, w_offset_lanes);
    const uint32_t odd0 = dsp_widen_weights_odd(ww0, w_offset_lanes), odd1 = dsp_widen_weights_odd(ww1, w_offset_lanes);
    uint64_t l = columns[0];
    a00 = tf_smlad((uint32_t)l, even0, a00), a01 = tf_smlad((uint32_t)l, even1, a01);
    a00 = tf_smlad((uint32_t)(l >> 32), odd0, a00), a01 = tf_smlad((uint32_t)(l >> 32), odd1, a01);
    l = columns[1];
    a10 = tf_smlad((uint32_t)l, even0, a10), a11 = tf_smlad((uint32_t)l, even1, a11);
    a10 = tf_smlad((uint32_t)(l >> 32), odd0, a10), a11 = tf_smlad((uint32_t)(l >> 32), odd1, a11);
  }
  acc[0] = a00, acc[1] = a01, acc[2] = a10, acc[3] = a11;
}

/* The same for one last group of `tail` (1 to 3) inputs whose column words
 * hold zero lanes past them: each weight row's last four weights (in bounds,
 * rows have at least four) loaded as one word ending at w[tail - 1] and
 * shifted down, so the lanes past the row hold only the weight offset,
 * multiplied by zero. */
static inline void dot_dsp_pair_2x2_tail(const uint64_t* columns, const dsp_element* w0, const dsp_element* w1,
                                         int32_t tail, uint32_t w_offset_lanes, int32_t acc[4]) {
  const uint32_t shift = 8u * (uint32_t)(4 - tail);
  const uint32_t ww0 = tf_load_u32(w0 + tail - 4) >> shift, ww1 = tf_load_u32(w1 + tail - 4) >> shift;
  const uint32_t even0 = dsp_widen_weights_even(ww0, w_offset_lanes);
  const uint32_t even1 = dsp_widen_weights_even(ww1, w_offset_lanes);
  const uint32_t odd0 = dsp_widen_weights_odd(ww0, w_offset_lanes), odd1 = dsp_widen_weights_odd(ww1, w_offset_lanes);
  const uint64_t l0 = columns[0], l1 = columns[1];
  acc[0] = tf_smlad((uint32_t)(l0 >> 32), odd0, tf_smlad((uint32_t)l0, even0, acc[0]));
  acc[1] = tf_smlad((uint32_t)(l0 >> 32), odd1, tf_smlad((uint32_t)l0, even1, acc[1]));
  acc[2] = tf_smlad((uint32_t)(l1 >> 32), odd0, tf_smlad((uint32_t)l1, even0, acc[2]));
  acc[3] = tf_smlad((uint32_t)(l1 >> 32), odd1, tf_smlad((uint32_t)l1, even1, acc[3]));
}

#endif /* TINYFIT_KERNEL_TEMPLATES_DOT_DSP_PAIR_H_ */
