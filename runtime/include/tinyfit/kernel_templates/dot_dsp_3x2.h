/* The dot step of three pixels by two output channels with 16-bit lanes, over
 * conv_dsp_arithmetic.h (included first): the im2col GEMM's
 * (conv2d_im2col_dsp.h) and the fused inverted bottleneck's pointwise stages'
 * (dot_dsp_triple.h). The pixels' inputs are columns: pixel p's group j of
 * four inputs is the 64-bit word 3 * j + p, its even and odd elements widened
 * (input offset added) in the low and high halves. */
#ifndef TINYFIT_KERNEL_TEMPLATES_DOT_DSP_3X2_H_
#define TINYFIT_KERNEL_TEMPLATES_DOT_DSP_3X2_H_

/* The columns of three pixels from `groups` groups of four contiguous
 * elements at x0, x1 and x2: the three pixels' words of a group side by side,
 * one loop step for the three (pixel by pixel, a group of two-word pixels
 * cost about 90 Cortex-M4 instructions). */
static inline void dot_dsp_widen_three(uint64_t* columns, const dsp_element* x0, const dsp_element* x1,
                                       const dsp_element* x2, int32_t groups, uint32_t x_offset_lanes) {
  const dsp_element* const x0_end = x0 + groups * 4;
  for (; x0 < x0_end; x0 += 4, x1 += 4, x2 += 4, columns += 3) {
    const uint32_t xw0 = tf_load_u32(x0), xw1 = tf_load_u32(x1), xw2 = tf_load_u32(x2);
    columns[0] = dsp_widen_column_word(xw0, x_offset_lanes);
    columns[1] = dsp_widen_column_word(xw1, x_offset_lanes);
    columns[2] = dsp_widen_column_word(xw2, x_offset_lanes);
  }
}

/* One group of four inputs of the three pixels (column words `words`)
 * against channels j = 0, 1 (weight words ww0, ww1: four raw weights each)
 * into the six sums a00..a21 in scope (a<p><j>), w_offset_lanes in scope:
 * four widenings shared by the pixels, one 64-bit load (LDRD) per pixel
 * shared by the channels (its even and odd lanes), twelve SMLADs. */
#define DOT_DSP_3X2_WEIGHTS(ww0, ww1, words)                                                                    \
  do {                                                                                                          \
    const uint32_t even0_ = dsp_widen_weights_even(ww0, w_offset_lanes);                                        \
    const uint32_t even1_ = dsp_widen_weights_even(ww1, w_offset_lanes);                                        \
    const uint32_t odd0_ = dsp_widen_weights_odd(ww0, w_offset_lanes);                                          \
    const uint32_t odd1_ = dsp_widen_weights_odd(ww1, w_offset_lanes);                                          \
    DOT_DSP_3X2_LANES(even0_, odd0_, even1_, odd1_, words);                                                     \
  } while (0)

/* The same group with the channel pair's weights as one 64-bit word at w
 * (channel 0's four raw weights in the low half, channel 1's in the high
 * one), as the im2col GEMM's weights are laid out. */
#define DOT_DSP_3X2_PAIR_WORD(w, words)                                    \
  do {                                                                     \
    const uint64_t ww_ = *(w);                                             \
    DOT_DSP_3X2_WEIGHTS((uint32_t)ww_, (uint32_t)(ww_ >> 32), words);      \
  } while (0)

/* The same group with the weights already widened: lanes (w0, w2) and
 * (w1, w3) of channel 0 (even0, odd0) and of channel 1 (even1, odd1). */
#define DOT_DSP_3X2_LANES(even0, odd0, even1, odd1, words)                                                      \
  do {                                                                                                          \
    uint64_t l_ = (words)[0];                                                                                   \
    a00 = tf_smlad((uint32_t)l_, even0, a00), a01 = tf_smlad((uint32_t)l_, even1, a01);                         \
    a00 = tf_smlad((uint32_t)(l_ >> 32), odd0, a00), a01 = tf_smlad((uint32_t)(l_ >> 32), odd1, a01);           \
    l_ = (words)[1];                                                                                            \
    a10 = tf_smlad((uint32_t)l_, even0, a10), a11 = tf_smlad((uint32_t)l_, even1, a11);                         \
    a10 = tf_smlad((uint32_t)(l_ >> 32), odd0, a10), a11 = tf_smlad((uint32_t)(l_ >> 32), odd1, a11);           \
    l_ = (words)[2];                                                                                            \
    a20 = tf_smlad((uint32_t)l_, even0, a20), a21 = tf_smlad((uint32_t)l_, even1, a21);                         \
    a20 = tf_smlad((uint32_t)(l_ >> 32), odd0, a20), a21 = tf_smlad((uint32_t)(l_ >> 32), odd1, a21);           \
  } while (0)

#endif /* TINYFIT_KERNEL_TEMPLATES_DOT_DSP_3X2_H_ */
