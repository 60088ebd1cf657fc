/* The fused inverted bottleneck's pointwise stages (a 1x1 expand, the
 * projection) for three pixels at once (inverted_bottleneck_segment_dsp.h),
 * over conv_dsp_arithmetic.h (included first): the three pixels' inputs
 * widened once into 16-bit lanes with the input offset added
 * (conv2d_im2col_dsp.h's columns), then two output channels at a time against
 * all three, as the im2col GEMM does. Per group of four inputs: two weight
 * loads and four widenings shared by the pixels, three 64-bit column loads
 * shared by the channels, twelve SMLADs. */
#ifndef TINYFIT_KERNEL_TEMPLATES_DOT_DSP_TRIPLE_H_
#define TINYFIT_KERNEL_TEMPLATES_DOT_DSP_TRIPLE_H_

/* Pixel p's group j of four inputs as the 64-bit word 3 * j + p of
 * `columns`: its even and odd elements widened (offset added) in the low and
 * high halves. The first count & ~3 inputs of x[0], x[1] and x[2]. */
static inline void dot_dsp_triple_widen(const dsp_element* const x[3], int32_t count, uint32_t x_offset_lanes,
                                        uint64_t* columns) {
  const dsp_element *x0 = x[0], *x1 = x[1], *x2 = x[2];
  const dsp_element* const x_end = x0 + (count & ~3);
  for (; x0 < x_end; x0 += 4, x1 += 4, x2 += 4, columns += 3) {
    const uint32_t xw0 = tf_load_u32(x0), xw1 = tf_load_u32(x1), xw2 = tf_load_u32(x2);
    columns[0] = dsp_widen_column_word(xw0, x_offset_lanes);
    columns[1] = dsp_widen_column_word(xw1, x_offset_lanes);
    columns[2] = dsp_widen_column_word(xw2, x_offset_lanes);
  }
}

/* acc[2 * p + j] += column p . weights w[j] over `groups` groups of four, for
 * the three pixels p and the two channels j. */
static inline void dot_dsp_triple_3x2(const uint64_t* columns, const dsp_element* w0, const dsp_element* w1,
                                      int32_t groups, uint32_t w_offset_lanes, int32_t acc[6]) {
  int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3], a20 = acc[4], a21 = acc[5];
  const dsp_element* const w_end = w0 + groups * 4;
  for (; w0 < w_end; w0 += 4, w1 += 4, columns += 3) {
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
    l = columns[2];
    a20 = tf_smlad((uint32_t)l, even0, a20), a21 = tf_smlad((uint32_t)l, even1, a21);
    a20 = tf_smlad((uint32_t)(l >> 32), odd0, a20), a21 = tf_smlad((uint32_t)(l >> 32), odd1, a21);
  }
  acc[0] = a00, acc[1] = a01, acc[2] = a10, acc[3] = a11, acc[4] = a20, acc[5] = a21;
}

#endif /* TINYFIT_KERNEL_TEMPLATES_DOT_DSP_TRIPLE_H_ */
