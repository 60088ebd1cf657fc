/* The fused inverted bottleneck's pointwise stages for a group of pixels
 * (inverted_bottleneck_segment_dsp.h, which includes this file twice): the
 * including file defines IB_DSP_POINTWISE_PAIR and IB_DSP_POINTWISE_TRIPLE,
 * the functions' names, and IB_DSP_POINTWISE_FOLDED, 1 for the variant that
 * requantises through the folded records (stage->folded, clamp of zero point
 * 0), 0 for the plain ones (stage->requant). Two functions each rather than a
 * test per pair of channels, as for the depthwise: the test and both
 * families' pointers cost MCUNet-320KB's fused blocks 0.9 M of 176.0 M
 * Cortex-M4 instructions. No include guard. */

#if IB_DSP_POINTWISE_FOLDED
#define IB_DSP_REQUANTIZE dsp_requantize_folded
#define IB_DSP_RECORD tf_requant_folded
#define IB_DSP_RECORDS(stage) (stage)->folded
#define IB_DSP_CLAMP(stage) dsp_folded_clamp(&(stage)->clamp)
#else
#define IB_DSP_REQUANTIZE dsp_requantize_smmlar
#define IB_DSP_RECORD tf_requant_channel
#define IB_DSP_RECORDS(stage) (stage)->requant
#define IB_DSP_CLAMP(stage) (stage)->clamp
#endif

/* Every output channel of a stem expand for two mids whose gathered windows
 * are x0 and x1 (the stage's row of elements each, at least four, padded up
 * to a group of four with elements that widen to zero; the same mid twice
 * when it is alone) into the ring slots y0 and y1: the inputs widened once
 * into `columns` (dot_dsp_pair.h), then each pair of channels against both,
 * its weight word loaded once for the two mids (the padded group's weights
 * are zeros), every value of a pair of channels requantised (SMMLAR) before
 * its stores and the two channels' constants read once for both mids, stores
 * without the lane-wise clamp when the activation does not narrow the type's
 * range; an odd last channel (zeros in its pair's other half) stored alone. */
IB_DSP_INNER_LOOP static void IB_DSP_POINTWISE_PAIR(const dsp_element* x0, const dsp_element* x1,
                                                    const ib_dsp_pointwise* stage, uint64_t* columns,
                                                    dsp_element* y0, dsp_element* y1) {
  const dsp_clamp clamp = IB_DSP_CLAMP(stage);
  const int32_t* const bias = stage->bias;
  const IB_DSP_RECORD* const records = IB_DSP_RECORDS(stage);
  const uint64_t* w = stage->weights;
  const int32_t co = stage->out_channels, narrowed = stage->narrowed, groups = stage->groups;
  const uint32_t w_offset_lanes = tf_splat_lanes(stage->w_offset);
  int32_t c;
  dot_dsp_pair_widen(x0, x1, 4 * groups, tf_splat_lanes(stage->x_offset), columns);
  for (c = 0; c < co; c += 2, w += groups) {
    const int32_t pair = c + 1 < co;
    int32_t acc[4];
    acc[0] = acc[2] = bias[c];
    acc[1] = acc[3] = bias[c + pair];
    dot_dsp_pair_2x2(columns, w, groups, w_offset_lanes, acc);
    if (!pair) {
      y0[c] = dsp_clamp_output(IB_DSP_REQUANTIZE(acc[0], &records[c]), &clamp);
      y1[c] = dsp_clamp_output(IB_DSP_REQUANTIZE(acc[2], &records[c]), &clamp);
      break;
    }
    {
      /* Each record read just before its channel's values (both first held
       * eight registers more). */
      const IB_DSP_RECORD q0 = records[c];
      const int32_t r00 = IB_DSP_REQUANTIZE(acc[0], &q0), r10 = IB_DSP_REQUANTIZE(acc[2], &q0);
      const IB_DSP_RECORD q1 = records[c + 1];
      const int32_t r01 = IB_DSP_REQUANTIZE(acc[1], &q1), r11 = IB_DSP_REQUANTIZE(acc[3], &q1);
      if (narrowed) {
        dsp_store2(y0 + c, r00, r01, &clamp);
        dsp_store2(y1 + c, r10, r11, &clamp);
      } else {
        dsp_store2_saturated(y0 + c, r00, r01, &clamp);
        dsp_store2_saturated(y1 + c, r10, r11, &clamp);
      }
    }
  }
}

/* Every output channel of a pointwise stage (a 1x1 expand, the projection)
 * for three pixels with inputs x[0..2] (`count` each, the stage's row; a
 * short group repeats its last pixel) into y[0..2]: the inputs widened once
 * into `columns` (dot_dsp_widen_three), then each pair of channels against the
 * three, its weight word loaded once for them, the inputs past the last group
 * of four one by one, requantised and stored as above; an odd last channel
 * (zeros in its pair's other half) stored alone. Channels in any order:
 * y[0..2] are ring slots, workspace, or output pixels between whose stores
 * the kernel loads nothing (a projection without residual). */
IB_DSP_INNER_LOOP static void IB_DSP_POINTWISE_TRIPLE(const dsp_element* const x[3], int32_t count,
                                                      const ib_dsp_pointwise* stage, uint64_t* columns,
                                                      dsp_element* const y[3]) {
  const dsp_clamp clamp = IB_DSP_CLAMP(stage);
  const int32_t* const bias = stage->bias;
  const IB_DSP_RECORD* const records = IB_DSP_RECORDS(stage);
  const uint64_t* w = stage->weights;
  const int32_t groups = stage->groups;
  const int32_t co = stage->out_channels, narrowed = stage->narrowed, pairs_end = co & ~1;
  const int32_t x_offset = stage->x_offset, w_offset = stage->w_offset;
  const uint32_t w_offset_lanes = tf_splat_lanes(w_offset);
  const int32_t head = count & ~3;
  const uint64_t* const columns_end = columns + 3 * (count >> 2);
  dsp_element *const y0 = y[0], *const y1 = y[1], *const y2 = y[2];
  dot_dsp_triple_sums s;
  int32_t c;
  dot_dsp_widen_three(columns, x[0], x[1], x[2], count >> 2, tf_splat_lanes(x_offset));
  for (c = 0; c < pairs_end; c += 2, w += groups) {
    s.a00 = s.a10 = s.a20 = bias[c];
    s.a01 = s.a11 = s.a21 = bias[c + 1];
    s = dot_dsp_triple_3x2(columns, columns_end, w, w_offset_lanes, s);
    if (head < count) s = dot_dsp_triple_3x2_tail(x, head, count, w, x_offset, w_offset, s);
    {
      const IB_DSP_RECORD q0 = records[c];
      const int32_t r00 = IB_DSP_REQUANTIZE(s.a00, &q0), r10 = IB_DSP_REQUANTIZE(s.a10, &q0);
      const int32_t r20 = IB_DSP_REQUANTIZE(s.a20, &q0);
      const IB_DSP_RECORD q1 = records[c + 1];
      const int32_t r01 = IB_DSP_REQUANTIZE(s.a01, &q1), r11 = IB_DSP_REQUANTIZE(s.a11, &q1);
      const int32_t r21 = IB_DSP_REQUANTIZE(s.a21, &q1);
      if (narrowed) {
        dsp_store2(y0 + c, r00, r01, &clamp);
        dsp_store2(y1 + c, r10, r11, &clamp);
        dsp_store2(y2 + c, r20, r21, &clamp);
      } else {
        dsp_store2_saturated(y0 + c, r00, r01, &clamp);
        dsp_store2_saturated(y1 + c, r10, r11, &clamp);
        dsp_store2_saturated(y2 + c, r20, r21, &clamp);
      }
    }
  }
  if (c < co) {
    s.a00 = s.a01 = s.a10 = s.a11 = s.a20 = s.a21 = bias[c];
    s = dot_dsp_triple_3x2(columns, columns_end, w, w_offset_lanes, s);
    if (head < count) s = dot_dsp_triple_3x2_tail(x, head, count, w, x_offset, w_offset, s);
    y0[c] = dsp_clamp_output(IB_DSP_REQUANTIZE(s.a00, &records[c]), &clamp);
    y1[c] = dsp_clamp_output(IB_DSP_REQUANTIZE(s.a10, &records[c]), &clamp);
    y2[c] = dsp_clamp_output(IB_DSP_REQUANTIZE(s.a20, &records[c]), &clamp);
  }
}

#undef IB_DSP_CLAMP
#undef IB_DSP_RECORDS
#undef IB_DSP_RECORD
#undef IB_DSP_REQUANTIZE
#undef IB_DSP_POINTWISE_FOLDED
#undef IB_DSP_POINTWISE_TRIPLE
#undef IB_DSP_POINTWISE_PAIR
