/* The fused inverted bottleneck's expand of two mid pixels at once
 * (inverted_bottleneck_segment_dsp.h), over conv_dsp_arithmetic.h (included
 * first): the two pixels' inputs widened once into 16-bit lanes with the input
 * offset added (conv2d_im2col_dsp.h's columns, two pixels wide), then two
 * output channels at a time against both, their weights in channel pairs as
 * the im2col GEMM takes them (one 64-bit word per pair and group of four
 * inputs: channel 2i's four bytes, then 2i + 1's; zeros past the row and the
 * last channel). Per group of four inputs: one weight load and four widenings
 * shared by the pixels, two 64-bit column loads shared by the channels, eight
 * SMLADs. */
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

/* acc[2 * p + j] += column p . channel j's weights over `groups` groups of
 * four, for the two pixels p and the pair's two channels j (w: the pair's
 * first word). */
static inline void dot_dsp_pair_2x2(const uint64_t* columns, const uint64_t* w, int32_t groups,
                                    uint32_t w_offset_lanes, int32_t acc[4]) {
  int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3];
  const uint64_t* const w_end = w + groups;
  for (; w < w_end; ++w, columns += 2) {
    const uint64_t ww = *w;
    const uint32_t ww0 = (uint32_t)ww, ww1 = (uint32_t)(ww >> 32);
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

#endif /* TINYFIT_KERNEL_TEMPLATES_DOT_DSP_PAIR_H_ */
