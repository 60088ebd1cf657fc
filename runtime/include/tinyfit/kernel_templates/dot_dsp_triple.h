/* The fused inverted bottleneck's pointwise stages (a 1x1 expand, the
 * projection) for three pixels at once (inverted_bottleneck_segment_dsp.h),
 * over conv_dsp_arithmetic.h (included first): the three pixels' inputs
 * widened once into columns (dot_dsp_widen_three), then two output channels
 * at a time against all three with the im2col GEMM's step (dot_dsp_3x2.h),
 * their weights in its channel pairs (one 64-bit word per pair and group of
 * four inputs: channel 2i's four bytes, then 2i + 1's; zeros past the row and
 * the last channel). */
#ifndef TINYFIT_KERNEL_TEMPLATES_DOT_DSP_TRIPLE_H_
#define TINYFIT_KERNEL_TEMPLATES_DOT_DSP_TRIPLE_H_

#include "tinyfit/kernel_templates/dot_dsp_3x2.h"

/* The six sums of three pixels p and two output channels j, a<p><j>: a
 * struct returned by value, so that after inlining they stay in registers
 * (through an int32_t[6] the compiler kept them on the stack around the loops
 * and spilled the loop's pointers: about 60 Cortex-M4 instructions more per
 * pair of channels). */
typedef struct dot_dsp_triple_sums {
  int32_t a00, a01, a10, a11, a20, a21;
} dot_dsp_triple_sums;

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
    DOT_DSP_3X2_PAIR_WORD(w, columns);
    DOT_DSP_3X2_PAIR_WORD(w + 1, columns + 3);
  }
  if (columns < columns_end) DOT_DSP_3X2_PAIR_WORD(w, columns);
  s.a00 = a00, s.a01 = a01, s.a10 = a10, s.a11 = a11, s.a20 = a20, s.a21 = a21;
  return s;
}

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
