/* The fused inverted bottleneck's depthwise of one output pixel
 * (inverted_bottleneck_segment_dsp.h, which includes this file twice): the
 * including file defines IB_DSP_DEPTHWISE, the function's name, and
 * IB_DSP_DEPTHWISE_FOLDED, 1 for the variant that requantises through the
 * folded records (params->requant_folded, clamp of zero point 0), 0 for the
 * plain ones (params->requant). Two functions rather than a test per group
 * of channels: with the test, GCC 12 -O2 kept the nine tap pointers of a
 * 3x3 window advancing on the stack (about 18 instructions a group more).
 * No include guard. */

#if IB_DSP_DEPTHWISE_FOLDED
#define IB_DSP_REQUANTIZE(acc, c) dsp_requantize_folded(acc, &records[c])
#define IB_DSP_RECORD tf_requant_folded
#define IB_DSP_RECORDS requant_folded
#else
#define IB_DSP_REQUANTIZE(acc, c) dsp_requantize_smmlar(acc, &records[c])
#define IB_DSP_RECORD tf_requant_channel
#define IB_DSP_RECORDS requant
#endif
#define IB_DSP_STORE4(y, c)                                                                                  \
  dsp_store4((y) + (c), IB_DSP_REQUANTIZE(a0, c), IB_DSP_REQUANTIZE(a1, (c) + 1), IB_DSP_REQUANTIZE(a2, (c) + 2), \
             IB_DSP_REQUANTIZE(a3, (c) + 3), clamp)

/* Whole window rows of one group of four channels: `tap` walks the rows'
 * tap pointers and `w` their weight pairs, `row` taps a row written out. */
#define IB_DSP_ROW5(tap, w)              \
  do {                                   \
    DWCONV_DSP_TAP((tap)[0] + c, w);     \
    DWCONV_DSP_TAP((tap)[1] + c, w + 2); \
    DWCONV_DSP_TAP((tap)[2] + c, w + 4); \
    DWCONV_DSP_TAP((tap)[3] + c, w + 6); \
    DWCONV_DSP_TAP((tap)[4] + c, w + 8); \
  } while (0)
#define IB_DSP_ROW7(tap, w)               \
  do {                                    \
    IB_DSP_ROW5(tap, w);                  \
    DWCONV_DSP_TAP((tap)[5] + c, w + 10); \
    DWCONV_DSP_TAP((tap)[6] + c, w + 12); \
  } while (0)
#define IB_DSP_ROWS_GROUP(row, row_taps)                                                  \
  do {                                                                                    \
    int32_t a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];           \
    const dsp_element* const* tap = taps;                                                 \
    const uint32_t* w = w_group;                                                          \
    for (ky = 0; ky < rows; ++ky, tap += (row_taps), w += 2 * (row_taps)) row(tap, w);    \
    IB_DSP_STORE4(y, c);                                                                  \
  } while (0)

/* The depthwise of one output pixel from its in-bounds taps into `y`: the
 * window's in-bounds taps are `rows` x `cols` from window position
 * `first_tap` (taps[i] their mid pixels, row by row), so each tap's weights
 * follow the previous one's along a window row. Groups of four channels, a
 * whole 3x3 window unrolled, whole rows of five or seven taps written out
 * (in the loop over taps, a 7x7 window of four channels cost 12 instructions
 * a tap on the Cortex-M4, written out 9 and 6 a row), a border window's rows
 * two taps at a time; the channels past the last group one by one (a word
 * load there would read past the mid pixel). */
TF_INNER_LOOP static void IB_DSP_DEPTHWISE(const dsp_element* const* taps, int32_t first_tap, int32_t rows,
                                           int32_t cols, const tf_conv_params* p, const dsp_clamp* call_clamp,
                                           dsp_element* y) {
  const uint32_t* words = (const uint32_t*)p->weights;
  const int32_t* bias = (const int32_t*)p->bias;
  const IB_DSP_RECORD* records = p->IB_DSP_RECORDS;
#if IB_DSP_DEPTHWISE_FOLDED
  const dsp_clamp folded_clamp = dsp_folded_clamp(call_clamp);
  const dsp_clamp* const clamp = &folded_clamp;
#else
  const dsp_clamp* const clamp = call_clamp;
#endif
  const int32_t channels = p->out_channels, simd_end = channels & ~3;
  const int32_t kernel_w = p->kernel_w;
  const ptrdiff_t group_words = (ptrdiff_t)p->kernel_h * kernel_w * 2, row_skip = (ptrdiff_t)(kernel_w - cols) * 2;
  const int32_t x_offset = p->input_offset;
  const uint32_t x_offset_lanes = tf_splat_lanes(x_offset);
  const uint32_t* w_group = words + first_tap * 2;
  int32_t c, ky, kx;
  if (rows == 3 && cols == 3 && kernel_w == 3) {
    /* Each tap's pointer loaded where it is used (nine pointers advanced
     * with the channels would not stay in registers). */
    for (c = 0; c < simd_end; c += 4, w_group += group_words) {
      int32_t a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
      DWCONV_DSP_TAP(taps[0] + c, w_group);
      DWCONV_DSP_TAP(taps[1] + c, w_group + 2);
      DWCONV_DSP_TAP(taps[2] + c, w_group + 4);
      DWCONV_DSP_TAP(taps[3] + c, w_group + 6);
      DWCONV_DSP_TAP(taps[4] + c, w_group + 8);
      DWCONV_DSP_TAP(taps[5] + c, w_group + 10);
      DWCONV_DSP_TAP(taps[6] + c, w_group + 12);
      DWCONV_DSP_TAP(taps[7] + c, w_group + 14);
      DWCONV_DSP_TAP(taps[8] + c, w_group + 16);
      IB_DSP_STORE4(y, c);
    }
  } else if (cols == kernel_w && (kernel_w == 5 || kernel_w == 7)) {
    /* Whole window rows of five or seven taps, each row written out: a tap
     * of four channels is its pointer's load, the input word's, the weight
     * pair's and six DSP instructions, no loop step. */
    if (kernel_w == 7) {
      for (c = 0; c < simd_end; c += 4, w_group += group_words) IB_DSP_ROWS_GROUP(IB_DSP_ROW7, 7);
    } else {
      for (c = 0; c < simd_end; c += 4, w_group += group_words) IB_DSP_ROWS_GROUP(IB_DSP_ROW5, 5);
    }
  } else if (cols == kernel_w) {
    /* Whole window rows: the taps' weights are consecutive. */
    const int32_t tap_count = rows * cols;
    int32_t i;
    for (c = 0; c < simd_end; c += 4, w_group += group_words) {
      int32_t a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
      const uint32_t* w = w_group;
      for (i = 0; i < tap_count; ++i, w += 2) DWCONV_DSP_TAP(taps[i] + c, w);
      IB_DSP_STORE4(y, c);
    }
  } else {
    /* A border window: its rows' in-bounds taps two at a time. */
    const int32_t col_pairs_end = cols & ~1;
    for (c = 0; c < simd_end; c += 4, w_group += group_words) {
      int32_t a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
      const dsp_element* const* tap = taps;
      const uint32_t* w = w_group;
      for (ky = 0; ky < rows; ++ky, tap += cols, w += 2 * kernel_w) {
        for (kx = 0; kx < col_pairs_end; kx += 2) {
          DWCONV_DSP_TAP(tap[kx] + c, w + 2 * kx);
          DWCONV_DSP_TAP(tap[kx + 1] + c, w + 2 * kx + 2);
        }
        if (kx < cols) DWCONV_DSP_TAP(tap[kx] + c, w + 2 * kx);
      }
      IB_DSP_STORE4(y, c);
    }
  }
  for (c = simd_end; c < channels; ++c) {
    const uint32_t* w = words + (c >> 2) * group_words + first_tap * 2 + ((c & 3) >> 1);
    const dsp_element* const* tap = taps;
    int32_t acc = bias[c];
    for (ky = 0; ky < rows; ++ky, w += row_skip) {
      for (kx = 0; kx < cols; ++kx, w += 2) {
        acc += dsp_widen((*tap++)[c], x_offset) * (int32_t)(int16_t)(uint16_t)(c & 1 ? *w >> 16 : *w & 0xffffu);
      }
    }
    y[c] = dsp_clamp_output(IB_DSP_REQUANTIZE(acc, c), clamp);
  }
}
#undef IB_DSP_ROWS_GROUP
#undef IB_DSP_ROW7
#undef IB_DSP_ROW5
#undef IB_DSP_STORE4
#undef IB_DSP_RECORDS
#undef IB_DSP_RECORD
#undef IB_DSP_REQUANTIZE
#undef IB_DSP_DEPTHWISE_FOLDED
#undef IB_DSP_DEPTHWISE
