/* The fused inverted bottleneck's pointwise stages (a 1x1 expand, the
 * projection) for three pixels at once (inverted_bottleneck_segment_dsp.h),
 * over conv_dsp_arithmetic.h (included first): the three pixels' inputs
 * widened once into 16-bit lanes with the input offset added
 * (conv2d_im2col_dsp.h's columns), then two output channels at a time against
 * all three, as the im2col GEMM does, their weights in its channel pairs (one
 * 64-bit word per pair and group of four inputs: channel 2i's four bytes, then
 * 2i + 1's; zeros past the row and the last channel). Per group of four
 * inputs: one weight load and four widenings shared by the pixels, three
 * 64-bit column loads shared by the channels, twelve SMLADs. */
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

/* The six sums of three pixels p and two output channels j, a<p><j>: a
 * struct returned by value, so that after inlining they stay in registers
 * (through an int32_t[6] the compiler kept them on the stack around the loops
 * and spilled the loop's pointers: about 60 Cortex-M4 instructions more per
 * pair of channels). */
typedef struct dot_dsp_triple_sums {
  int32_t a00, a01, a10, a11, a20, a21;
} dot_dsp_triple_sums;

/* One group of four inputs (columns[0..2], the pair's weight word at w) into
 * the six sums a00..a21 in scope. */
#define DOT_DSP_TRIPLE_GROUP(columns, w)                                                                       \
  do {                                                                                                         \
    const uint64_t ww = *(w);                                                                                  \
    const uint32_t ww0 = (uint32_t)ww, ww1 = (uint32_t)(ww >> 32);                                             \
    const uint32_t even0 = dsp_widen_weights_even(ww0, w_offset_lanes);                                        \
    const uint32_t even1 = dsp_widen_weights_even(ww1, w_offset_lanes);                                        \
    const uint32_t odd0 = dsp_widen_weights_odd(ww0, w_offset_lanes);                                          \
    const uint32_t odd1 = dsp_widen_weights_odd(ww1, w_offset_lanes);                                          \
    uint64_t l = (columns)[0];                                                                                 \
    a00 = tf_smlad((uint32_t)l, even0, a00), a01 = tf_smlad((uint32_t)l, even1, a01);                          \
    a00 = tf_smlad((uint32_t)(l >> 32), odd0, a00), a01 = tf_smlad((uint32_t)(l >> 32), odd1, a01);            \
    l = (columns)[1];                                                                                          \
    a10 = tf_smlad((uint32_t)l, even0, a10), a11 = tf_smlad((uint32_t)l, even1, a11);                          \
    a10 = tf_smlad((uint32_t)(l >> 32), odd0, a10), a11 = tf_smlad((uint32_t)(l >> 32), odd1, a11);            \
    l = (columns)[2];                                                                                          \
    a20 = tf_smlad((uint32_t)l, even0, a20), a21 = tf_smlad((uint32_t)l, even1, a21);                          \
    a20 = tf_smlad((uint32_t)(l >> 32), odd0, a20), a21 = tf_smlad((uint32_t)(l >> 32), odd1, a21);            \
  } while (0)

/* s + column p . weights of the pair's channel j over the groups of four of
 * `columns` up to columns_end, the pair's words from w: two groups a loop
 * step (one a step cost 27 Cortex-M4 instructions for 24 MACs, its end
 * reloaded from the stack every step), then the last odd group. Always
 * inlined: its sums stay in the caller's registers (GCC 12 -O2 made a call
 * of it once it held two groups). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline dot_dsp_triple_sums dot_dsp_triple_3x2(const uint64_t* columns, const uint64_t* columns_end,
                                                     const uint64_t* w, uint32_t w_offset_lanes,
                                                     dot_dsp_triple_sums s) {
  int32_t a00 = s.a00, a01 = s.a01, a10 = s.a10, a11 = s.a11, a20 = s.a20, a21 = s.a21;
  const uint64_t* const pairs_end = columns + (columns_end - columns) / 6 * 6;
  for (; columns < pairs_end; w += 2, columns += 6) {
    DOT_DSP_TRIPLE_GROUP(columns, w);
    DOT_DSP_TRIPLE_GROUP(columns + 3, w + 1);
  }
  if (columns < columns_end) DOT_DSP_TRIPLE_GROUP(columns, w);
  s.a00 = a00, s.a01 = a01, s.a10 = a10, s.a11 = a11, s.a20 = a20, s.a21 = a21;
  return s;
}
#undef DOT_DSP_TRIPLE_GROUP

/* s + the products of inputs [head, count) of x[0..2] (not widened) with the
 * pair's two channels' weights (its words from w), one by one. */
static inline dot_dsp_triple_sums dot_dsp_triple_3x2_tail(const dsp_element* const x[3], int32_t head, int32_t count,
                                                          const uint64_t* w, int32_t x_offset, int32_t w_offset,
                                                          dot_dsp_triple_sums s) {
  const dsp_element* const bytes = (const dsp_element*)w;
  int32_t i;
  for (i = head; i < count; ++i) {
    const dsp_element* const group = bytes + (i >> 2) * 8 + (i & 3);
    const int32_t v0 = dsp_widen(group[0], w_offset), v1 = dsp_widen(group[4], w_offset);
    const int32_t p0 = dsp_widen(x[0][i], x_offset), p1 = dsp_widen(x[1][i], x_offset);
    const int32_t p2 = dsp_widen(x[2][i], x_offset);
    s.a00 += p0 * v0, s.a01 += p0 * v1, s.a10 += p1 * v0, s.a11 += p1 * v1, s.a20 += p2 * v0, s.a21 += p2 * v1;
  }
  return s;
}

#endif /* TINYFIT_KERNEL_TEMPLATES_DOT_DSP_TRIPLE_H_ */
