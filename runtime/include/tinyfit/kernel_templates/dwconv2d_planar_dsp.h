/* DepthwiseConv2D 3x3, stride 1, dilation 1, multiplier 1, through channel
 * planes, over conv_dsp_arithmetic.h (included
 * first). The including file defines TF_DWCONV_PLANAR_DSP, the function it
 * implements (tinyfit/conv.h). Weights, bias and requantisation constants are
 * dwconv2d_dsp.h's (int16 w[ceil(C/4)][3][3][4] plus the weight offset).
 *
 * Why planes: in NHWC a word holds four channels of one pixel, so each
 * product is one SMLAxy (dwconv2d_dsp.h: about 5 instructions per MAC on a
 * Cortex-M4 with requantisation and borders). Here the input rows a group of
 * four channels needs are widened once into one plane per channel (16-bit
 * lanes along the row, the input offset added, zero lanes for the padding),
 * so two neighbouring taps of one channel are one word and one SMLAD: a pair
 * of output pixels over a 3x3 window is three 64-bit loads and twelve
 * multiply-adds for 18 MACs, padding needs no branch, and each channel's
 * requantisation constants stay in registers along the row.
 *
 * The workspace (8-byte aligned, tf_dwconv2d_planar_workspace_bytes): four
 * planes of three ring slots (the window's rows; a row is widened once per
 * group of channels), then one row of int32
 * sums. Plane ch holds lane l of slot s in halfword (l & 1) of word
 * (l >> 1) * 3 + s, so the three slots of a word are adjacent; lane l is
 * input column l - pad_left (lane 0: output column 0's first tap). Rows:
 * 2 * (P + 1) lanes, P = ceil(output cols / 2) pairs of output pixels (the
 * last pair of an odd row computes one column past the row, which is not
 * stored).
 *
 * Stride 2 is not served: its rows are widened for 2.25 MACs an element
 * instead of 9, and measured on the Cortex-M4 it ran slower than
 * dwconv2d_dsp.h (vww_96's 48x48x16 layer 429,840 instructions against
 * 408,600). Each output row of a channel pays about 200 instructions of
 * calls and set-up, so narrow rows lose too: the compiler calls it for rows
 * of at least 16 pixels (exec::kDepthwisePlanarMinCols). */

#define DWPLANAR_SLOTS 3

/* (a & 0xffff) | b << 16 and (a >> 16) | (b & 0xffff0000): PKHBT / PKHTB,
 * which GCC 12 does not match from the expressions. */
static inline uint32_t dwplanar_pack_low(uint32_t a, uint32_t b) {
#if TF_DSP_INTRINSICS && defined(__GNUC__)
  uint32_t r;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return (a & 0xffffu) | b << 16;
#endif
}
static inline uint32_t dwplanar_pack_high(uint32_t a, uint32_t b) {
#if TF_DSP_INTRINSICS && defined(__GNUC__)
  uint32_t r;
  __asm__("pkhtb %0, %1, %2, asr #16" : "=r"(r) : "r"(b), "r"(a));
  return r;
#else
  return a >> 16 | (b & 0xffff0000u);
#endif
}

/* Words [0, count) of slot 0 of four planes (q, q + plane_words, ...; a
 * word every DWPLANAR_SLOTS) from the four channels of columns 2j and
 * 2j + 1 of x (columns xs2 apart): two loads, two widenings a column, four
 * lane packs and four stores a word. */
TF_INNER_LOOP static void dwplanar_fill_four(uint32_t* q, ptrdiff_t plane_words, int32_t count, const dsp_element* x,
                                             ptrdiff_t xs2, uint32_t x_offset_lanes) {
  uint32_t* const q1 = q + plane_words;
  uint32_t* const q2 = q1 + plane_words;
  uint32_t* const q3 = q2 + plane_words;
  const ptrdiff_t end = (ptrdiff_t)count * DWPLANAR_SLOTS;
  ptrdiff_t i;
  for (i = 0; i < end; i += DWPLANAR_SLOTS, x += 2 * xs2) {
    const uint32_t a = tf_load_u32(x), b = tf_load_u32(x + xs2);
    const uint32_t even_a = dsp_widen_even(a, x_offset_lanes), even_b = dsp_widen_even(b, x_offset_lanes);
    q[i] = dwplanar_pack_low(even_a, even_b);
    q2[i] = dwplanar_pack_high(even_a, even_b);
    {
      const uint32_t odd_a = dsp_widen_odd(a, x_offset_lanes), odd_b = dsp_widen_odd(b, x_offset_lanes);
      q1[i] = dwplanar_pack_low(odd_a, odd_b);
      q3[i] = dwplanar_pack_high(odd_a, odd_b);
    }
  }
}

/* Words [0, count) of slot 0 of one plane (a word every DWPLANAR_SLOTS)
 * from a channel whose columns are adjacent bytes (a one-channel chunk):
 * columns 4i..4i + 3 are one load, two widenings and two lane packs for two
 * words; an odd last word lane by lane. Lane by lane, a one-channel chunk
 * of mcunet-5fps_vww's first depthwise spent about 13 instructions an
 * output value on its fills. */
TF_INNER_LOOP static void dwplanar_fill_one(uint32_t* q, int32_t count, const dsp_element* x, int32_t x_offset,
                                            uint32_t x_offset_lanes) {
  uint32_t* const q_pairs_end = q + (ptrdiff_t)(count >> 1) * 2 * DWPLANAR_SLOTS;
  for (; q < q_pairs_end; q += 2 * DWPLANAR_SLOTS, x += 4) {
    const uint32_t a = tf_load_u32(x);
    const uint32_t even = dsp_widen_even(a, x_offset_lanes), odd = dsp_widen_odd(a, x_offset_lanes);
    q[0] = dwplanar_pack_low(even, odd);
    q[DWPLANAR_SLOTS] = dwplanar_pack_high(even, odd);
  }
  if (count & 1) *q = tf_pack_lanes(dsp_widen(x[0], x_offset), dsp_widen(x[1], x_offset));
}

/* Ring slot s of every used plane from input row x_row (its channel 0 is the
 * group's first, columns xs2 apart; NULL: a padding row, all zero). Lane
 * pairs whose columns are both in the input are, for a group of four
 * channels, one word load per column, two widenings and four lane packs
 * (PKHBT / PKHTB), and for one channel of adjacent columns
 * (dwplanar_fill_one) a load, two widenings and two packs per two words;
 * the rest lane by lane. */
static void dwplanar_fill(uint32_t* planes, ptrdiff_t plane_words, int32_t slot, int32_t channels,
                          const dsp_element* x_row, ptrdiff_t xs2, int32_t in_cols, int32_t pad_left, int32_t words,
                          int32_t x_offset, uint32_t x_offset_lanes) {
  uint32_t* const p = planes + slot;
  int32_t fast_begin = (pad_left + 1) >> 1, fast_end = (in_cols + pad_left) >> 1, j, ch;
  const int32_t one = channels == 1 && xs2 == 1;
  if (x_row == NULL || (channels < 4 && !one)) fast_begin = fast_end = 0;
  if (fast_end > words) fast_end = words;
  if (fast_begin > fast_end) fast_begin = fast_end;
  for (ch = 0; ch < channels; ++ch) {
    uint32_t* q = p + ch * plane_words;
    for (j = 0; j < words; ++j) {
      int32_t lane[2], h;
      if (j == fast_begin) j = fast_end;
      if (j >= words) break;
      for (h = 0; h < 2; ++h) {
        const int32_t col = 2 * j + h - pad_left;
        lane[h] = x_row != NULL && col >= 0 && col < in_cols ? dsp_widen(x_row[col * xs2 + ch], x_offset) : 0;
      }
      q[j * DWPLANAR_SLOTS] = tf_pack_lanes(lane[0], lane[1]);
    }
  }
  if (fast_begin < fast_end && one) {
    dwplanar_fill_one(p + fast_begin * DWPLANAR_SLOTS, fast_end - fast_begin, x_row + 2 * fast_begin - pad_left,
                      x_offset, x_offset_lanes);
  } else if (fast_begin < fast_end) {
    dwplanar_fill_four(p + fast_begin * DWPLANAR_SLOTS, plane_words, fast_end - fast_begin,
                       x_row + (2 * fast_begin - pad_left) * xs2, xs2, x_offset_lanes);
  }
}

/* Sums of `pairs` pairs of output pixels into sums[2 * pairs],
 * from `bias`: p is the plane's word 0, slots s = 0..2 weighted by
 * w01[s] = (w0, w1) and w12[s] = (w1, w2) of the window row in that slot.
 * Pixel 2i reads lanes 2i..2i+2: SMLAD of word i and the low lane of word
 * i + 1 times w2; pixel 2i + 1 the high lane of word i times w0 and SMLAD of
 * word i + 1. Sums wrap as TFLite's int32 arithmetic. */
TF_INNER_LOOP static void dwplanar_sums(const uint32_t* p, int32_t* sums, int32_t pairs, const uint32_t* w01,
                                                const uint32_t* w12, int32_t bias) {
  const uint32_t a01 = w01[0], b01 = w01[1], c01 = w01[2], a12 = w12[0], b12 = w12[1], c12 = w12[2];
  for (; pairs > 0; --pairs, p += DWPLANAR_SLOTS, sums += 2) {
    /* Adjacent words in pairs (LDRD): word i's slots 0, 1; slot 2 and word
     * i + 1's slot 0; word i + 1's slots 1, 2. */
    uint32_t u = p[0], v = p[1];
    int32_t s0 = tf_smlad(u, a01, bias), s1 = tf_smlatb(u, a01, bias);
    s0 = tf_smlad(v, b01, s0);
    s1 = tf_smlatb(v, b01, s1);
    u = p[2];
    v = p[3];
    s0 = tf_smlad(u, c01, s0);
    s1 = tf_smlatb(u, c01, s1);
    s0 = tf_smlabt(v, a12, s0);
    s1 = tf_smlad(v, a12, s1);
    u = p[4];
    v = p[5];
    s0 = tf_smlabt(u, b12, s0);
    s1 = tf_smlad(u, b12, s1);
    s0 = tf_smlabt(v, c12, s0);
    s1 = tf_smlad(v, c12, s1);
    sums[0] = s0;
    sums[1] = s1;
  }
}

/* The clamp is the element type's whole range (an activation that clamps
 * nothing, or ReLU at the lowest zero point): SSAT / USAT alone. */
static inline int dwplanar_saturates_only(const dsp_clamp* c) {
#if TF_DSP_UNSIGNED
  return c->min == 0 && c->max == 255;
#else
  return c->min == -128 && c->max == 127;
#endif
}

static inline int32_t dwplanar_saturate(int32_t v) {
#if TF_DSP_INTRINSICS
#if TF_DSP_UNSIGNED
  return (int32_t)__usat(v, 8);
#else
  return __ssat(v, 8);
#endif
#else
#if TF_DSP_UNSIGNED
  return v < 0 ? 0 : v > 255 ? 255 : v;
#else
  return v < -128 ? -128 : v > 127 ? 127 : v;
#endif
#endif
}

/* `count` sums requantised (tf_requantize's arithmetic: with a right shift,
 * sign_mask is -1 and the rounding addend is rounding + (acc >> 31); without,
 * both are 0), clamped and stored y_step apart, the channel's constants in
 * registers: a load, five instructions, the saturation and a store an
 * output when the clamp is the element's range, two compares more when not. */
TF_INNER_LOOP static void dwplanar_store(const int32_t* sums, dsp_element* y, ptrdiff_t y_step, int32_t count,
                                         const tf_requant_channel* q, const dsp_clamp* clamp) {
  const int32_t multiplier = q->multiplier, left_shift = q->left_shift, rounding = q->rounding;
  const int32_t right_shift = q->right_shift, zero_point = clamp->zero_point;
  const int32_t* const end = sums + count;
  if (dwplanar_saturates_only(clamp)) {
    if (right_shift > 0) {
      for (; sums < end; ++sums, y += y_step) {
        const int32_t acc = *sums;
        const int32_t v =
            tf_smmlar((int32_t)((uint32_t)acc << left_shift), multiplier, rounding + (acc >> 31)) >> right_shift;
        *y = (dsp_element)dwplanar_saturate(v + zero_point);
      }
    } else {
      for (; sums < end; ++sums, y += y_step) {
        const int32_t v = tf_smmlar((int32_t)((uint32_t)*sums << left_shift), multiplier, 0);
        *y = (dsp_element)dwplanar_saturate(v + zero_point);
      }
    }
    return;
  }
  for (; sums < end; ++sums, y += y_step) *y = dsp_requantize(*sums, q, clamp);
}

/* Output channels [out_begin, out_end) of the node (output view channel 0 =
 * out_begin; input view channel 0 = the node's channel in_begin), groups of
 * four channels: for each output row, the window rows not yet in the ring
 * are widened into their slots, then each channel of the group sums its row
 * and stores it. */
static void dwplanar_run(const tf_view* input, const tf_view* output, const tf_conv_params* p, uint8_t* workspace,
                         int32_t out_begin, int32_t out_end, int32_t in_begin) {
  const int32_t pad_top = p->pad_top, pad_left = p->pad_left;
  const int32_t in_rows = input->shape[1], in_cols = input->shape[2];
  const int32_t out_rows = output->shape[1], out_cols = output->shape[2];
  const int32_t pairs = (out_cols + 1) >> 1, words = pairs + 1;
  const ptrdiff_t plane_words = (ptrdiff_t)words * DWPLANAR_SLOTS;
  uint32_t* const planes = (uint32_t*)(void*)workspace;
  int32_t* const sums = (int32_t*)(void*)(planes + 4 * plane_words);
  const ptrdiff_t xs0 = input->strides[0], xs1 = input->strides[1], xs2 = input->strides[2];
  const ptrdiff_t ys0 = output->strides[0], ys1 = output->strides[1], ys2 = output->strides[2];
  const uint32_t* const weight_words = (const uint32_t*)p->weights;
  const int32_t* const bias = (const int32_t*)p->bias;
  const uint32_t x_offset_lanes = tf_splat_lanes(p->input_offset);
  const dsp_clamp clamp = dsp_make_clamp(p);
  int32_t n, g, oy, iy, ch, r;
  for (n = 0; n < output->shape[0]; ++n) {
    for (g = out_begin; g < out_end; g += 4) {
      const int32_t channels = out_end - g < 4 ? out_end - g : 4;
      const dsp_element* const x_group = (const dsp_element*)input->data + n * xs0 + (g - in_begin);
      /* w01[ch][r] = (w[r][0], w[r][1]), w12[ch][r] = (w[r][1], w[r][2]). */
      uint32_t w01[4][DWPLANAR_SLOTS], w12[4][DWPLANAR_SLOTS];
      int32_t next_row = -pad_top;
      for (ch = 0; ch < channels; ++ch) {
        const int32_t c = g + ch;
        const uint8_t* w = (const uint8_t*)(weight_words + (c >> 2) * 18) + (c & 3) * 2;
        for (r = 0; r < 3; ++r, w += 24) {
          w01[ch][r] = tf_pack_lanes(tf_load_s16(w), tf_load_s16(w + 8));
          w12[ch][r] = tf_pack_lanes(tf_load_s16(w + 8), tf_load_s16(w + 16));
        }
      }
      for (oy = 0; oy < out_rows; ++oy) {
        const int32_t iy0 = oy - pad_top;
        /* Slot s holds the row iy with iy = s mod 3; window row r of this
         * output row is in slot (iy0 + r) mod 3. Stride 1: one new row per
         * output row after the first. */
        const int32_t first_slot = (iy0 % DWPLANAR_SLOTS + DWPLANAR_SLOTS) % DWPLANAR_SLOTS;
        for (iy = next_row > iy0 ? next_row : iy0; iy < iy0 + 3; ++iy) {
          const int32_t slot = (iy % DWPLANAR_SLOTS + DWPLANAR_SLOTS) % DWPLANAR_SLOTS;
          dwplanar_fill(planes, plane_words, slot, channels, iy >= 0 && iy < in_rows ? x_group + iy * xs1 : NULL,
                        xs2, in_cols, pad_left, words, p->input_offset, x_offset_lanes);
        }
        next_row = iy0 + 3;
        for (ch = 0; ch < channels; ++ch) {
          const int32_t c = g + ch;
          uint32_t slot01[DWPLANAR_SLOTS], slot12[DWPLANAR_SLOTS];
          for (r = 0; r < 3; ++r) {
            const int32_t slot = first_slot + r < DWPLANAR_SLOTS ? first_slot + r : first_slot + r - DWPLANAR_SLOTS;
            slot01[slot] = w01[ch][r];
            slot12[slot] = w12[ch][r];
          }
          dwplanar_sums(planes + ch * plane_words, sums, pairs, slot01, slot12, bias[c]);
          dwplanar_store(sums, (dsp_element*)output->data + n * ys0 + oy * ys1 + (c - out_begin), ys2, out_cols,
                         &p->requant[c], &clamp);
        }
      }
    }
  }
}

void TF_DWCONV_PLANAR_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                          uint8_t* workspace, int32_t out_begin, int32_t out_end, int32_t in_begin) {
  dwplanar_run(input, output, params, workspace, out_begin, out_end, in_begin);
}
