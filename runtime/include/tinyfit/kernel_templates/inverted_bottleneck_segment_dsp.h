/* The fused inverted bottleneck in segment order (tinyfit/segment.h) with
 * 16-bit lanes, over conv_dsp_arithmetic.h (included first); the including
 * file then defines TF_INVERTED_BOTTLENECK_SEGMENT_DSP. Every stage's
 * constants are the __dsp kernels' (the binding takes this kernel only when
 * the __dsp arithmetic serves all three: expand and project weights in the
 * IR layout, the depthwise's as dwconv2d_dsp.h packs them, int16 lanes with
 * the weight offset added, [ceil(C/4)][KH][KW][4]). Each stage requantises
 * through its folded records (params->requant_folded: the output zero point
 * in their addend) when the compiler emitted them, else its plain ones
 * (params->requant; the depthwise, inverted_bottleneck_depthwise_dsp.h, one
 * function per family); an expand has folded records only when every mid goes
 * through the grouped paths below (the segment conv kernel's pixel paths,
 * its fallback, read plain ones). Bit for bit the reference.
 *
 * Output pixels in groups of three traversal positions (the last group
 * shorter when three do not divide the count). Per pixel of a group: the
 * expanded pixels it needs last into their ring slots (segment_last_computed_mid:
 * a 1x1 expand's in groups of three, each group's inputs widened once into
 * the workspace and every weight loaded once for the three, two channels at a
 * time, ib_dsp_pointwise_triple; a stem convolution's in pairs, both windows
 * gathered first, ib_dsp_pointwise_pair); the depthwise over
 * the ring taps into its depthwise pixel, four channels per pass with SMLAxy
 * as dwconv2d_dsp.h, the weights of the window's in-bounds rectangle in order
 * (a whole 3x3 window unrolled, whole rows of five or seven taps written
 * out, a border window's rows two taps at a time). Then the projection of the group's depthwise
 * pixels in one pass (ib_dsp_pointwise_triple), into the output pixels (a
 * short group's last pixel stored again), or with a residual into three
 * projected pixels of workspace, which are then added to their input pixels block by block with
 * the element arithmetic of the ADD kernels (quantized_add.h's SMMLAR form
 * when the parameters allow it, TFLite's as written otherwise) and stored.
 *
 * Access order: inverted_bottleneck_segment.h's (plan/segment_kernel.h's
 * kInvertedBottleneck record, which verify_plan replays) with reads moved
 * earlier only. Input and output are touched only by the expand (per mid
 * block, its window loaded, then the block stored into the ring; the mids
 * of a group interleaved, which reorders loads among loads only), the
 * residual loads and the output stores: the later pixels of a group have their
 * expand loads before the first pixel's stores (earlier than the record's,
 * and an earlier read sees the same bytes: only this kernel writes the
 * output); the stores and residual loads keep the record's order (a block's
 * residual word loaded before the block is stored, pixel after pixel; without
 * a residual a group's stores have no load between them, so their order among
 * themselves does not matter). The depthwise and the projection read the
 * workspace, which no overlap involves. */
#include "tinyfit/kernel_templates/conv_segment_dsp.h"
#include "tinyfit/kernel_templates/dot_dsp_pair.h"
#include "tinyfit/kernel_templates/dot_dsp_triple.h"
#include "tinyfit/kernel_templates/dwconv2d_dsp_pixel.h"
#include "tinyfit/kernel_templates/inverted_bottleneck_segment.h"

#define TF_T dsp_element
#define TF_ADD_UNSIGNED TF_DSP_UNSIGNED
#define TF_ADD_SUBTRACT 0
#include "tinyfit/kernel_templates/quantized_add.h"

#define IB_DSP_DEPTHWISE ib_dsp_depthwise_plain
#define IB_DSP_DEPTHWISE_FOLDED 0
#include "tinyfit/kernel_templates/inverted_bottleneck_depthwise_dsp.h"
#define IB_DSP_DEPTHWISE ib_dsp_depthwise_folded
#define IB_DSP_DEPTHWISE_FOLDED 1
#include "tinyfit/kernel_templates/inverted_bottleneck_depthwise_dsp.h"
#undef DWCONV_DSP_TAP

/* The pointwise stages' loops: TF_INNER_LOOP's, and on GCC without the
 * induction-variable pass, which gave every output pixel's store pointer an
 * induction variable of its own, spilled to the stack (two loads and a store
 * each per pair of channels: 1.0 M instructions of MCUNet-320KB's fused
 * blocks on the Cortex-M4). */
#if defined(__GNUC__) && !defined(__clang__)
#define IB_DSP_INNER_LOOP __attribute__((noinline, optimize("no-schedule-insns", "no-ivopts")))
#else
#define IB_DSP_INNER_LOOP TF_INNER_LOOP
#endif

/* The residual add of the call, prepared once: quantized_add.h's fast form
 * when the parameters allow it (fast_ok), TFLite's arithmetic otherwise. */
typedef struct ib_dsp_residual {
  const tf_quantized_add_params* params;
  add_fast fast;
  int32_t fast_ok;
} ib_dsp_residual;

/* x (the input pixel's element) + projected (the projection's element), as
 * the ADD kernel computes it; zero point included, before saturation when
 * fast_ok. */
static inline int32_t ib_dsp_add_value(int32_t x, int32_t projected, const ib_dsp_residual* r) {
  if (r->fast.linear) {
    return r->fast.swapped ? add_linear_value(projected, x, &r->fast) : add_linear_value(x, projected, &r->fast);
  }
  return add_general_value(x, projected, &r->fast);
}

/* A pointwise stage of a group of pixels (the expand or the projection): its
 * weights, bias, requantisation and clamp, copied out of the params once per
 * call (element stores may alias the params, so the compiler would reload
 * them after every store). The weights in the im2col GEMM's channel pairs
 * (dot_dsp_triple.h): `groups` 64-bit words a pair, its row of `row` inputs
 * rounded up to a group of four. One family of records: the folded ones
 * when the compiler emitted them (then requant is NULL), else the plain
 * ones. */
typedef struct ib_dsp_pointwise {
  const uint64_t* weights;
  const int32_t* bias;
  const tf_requant_channel* requant;
  const tf_requant_folded* folded; /* params->requant_folded */
  int32_t groups;
  int32_t out_channels, x_offset, w_offset;
  int32_t narrowed; /* dsp_clamp_narrows(&clamp) */
  dsp_clamp clamp;
} ib_dsp_pointwise;

static inline ib_dsp_pointwise ib_dsp_make_pointwise(const tf_conv_params* p, int32_t row) {
  ib_dsp_pointwise s;
  s.weights = (const uint64_t*)p->weights;
  s.bias = (const int32_t*)p->bias;
  s.requant = p->requant;
  s.folded = p->requant_folded;
  s.groups = (row + 3) >> 2;
  s.out_channels = p->out_channels;
  s.x_offset = p->input_offset;
  s.w_offset = p->weight_offset;
  s.clamp = dsp_make_clamp(p);
  s.narrowed = dsp_clamp_narrows(&s.clamp);
  return s;
}

#define IB_DSP_POINTWISE_PAIR ib_dsp_pointwise_pair_plain
#define IB_DSP_POINTWISE_TRIPLE ib_dsp_pointwise_triple_plain
#define IB_DSP_POINTWISE_FOLDED 0
#include "tinyfit/kernel_templates/inverted_bottleneck_pointwise_dsp.h"
#define IB_DSP_POINTWISE_PAIR ib_dsp_pointwise_pair_folded
#define IB_DSP_POINTWISE_TRIPLE ib_dsp_pointwise_triple_folded
#define IB_DSP_POINTWISE_FOLDED 1
#include "tinyfit/kernel_templates/inverted_bottleneck_pointwise_dsp.h"

/* A stage's pair or triple routine for its record family. */
static inline void ib_dsp_pointwise_pair(const dsp_element* x0, const dsp_element* x1, const ib_dsp_pointwise* stage,
                                         uint64_t* columns, dsp_element* y0, dsp_element* y1) {
  (stage->folded != NULL ? ib_dsp_pointwise_pair_folded : ib_dsp_pointwise_pair_plain)(x0, x1, stage, columns, y0,
                                                                                          y1);
}
static inline void ib_dsp_pointwise_triple(const dsp_element* const x[3], int32_t count,
                                           const ib_dsp_pointwise* stage, uint64_t* columns,
                                           dsp_element* const y[3]) {
  (stage->folded != NULL ? ib_dsp_pointwise_triple_folded : ib_dsp_pointwise_triple_plain)(x, count, stage, columns,
                                                                                              y);
}

/* Output pixels y[0..count) of a group: input pixel x[i] plus its projected
 * elements at projected + i * co (the residual add), pixel after pixel, block
 * by block in traversal order, each block's input loaded before the block is
 * stored. One call a group (a call a pixel cost about 50 Cortex-M4
 * instructions of entry and setup each). */
TF_INNER_LOOP static void ib_dsp_add_residual(const dsp_element* projected, const dsp_element* const x[3],
                                              dsp_element* const y[3], int32_t count, int32_t co,
                                              const ib_dsp_residual* residual, int32_t descending) {
  const int32_t blocks = (co + TF_SEGMENT_CONV_BLOCK - 1) / TF_SEGMENT_CONV_BLOCK;
  int32_t i, b, j;
  for (i = 0; i < count; ++i, projected += co) {
    const dsp_element* const xi = x[i];
    dsp_element* const yi = y[i];
    for (b = 0; b < blocks; ++b) {
      int32_t oc_begin, oc_end;
      dsp_element block[TF_SEGMENT_CONV_BLOCK];
      segment_block(b, co, TF_SEGMENT_CONV_BLOCK, descending, &oc_begin, &oc_end);
      if (oc_end - oc_begin == TF_SEGMENT_CONV_BLOCK && residual->fast_ok) {
        const uint32_t xw = tf_load_u32(xi + oc_begin), pw = tf_load_u32(projected + oc_begin);
        tf_store_u32(yi + oc_begin, add_pack4(ib_dsp_add_value(add_byte(xw, 0), add_byte(pw, 0), residual),
                                              ib_dsp_add_value(add_byte(xw, 1), add_byte(pw, 1), residual),
                                              ib_dsp_add_value(add_byte(xw, 2), add_byte(pw, 2), residual),
                                              ib_dsp_add_value(add_byte(xw, 3), add_byte(pw, 3), residual),
                                              &residual->fast));
        continue;
      }
      for (j = oc_begin; j < oc_end; ++j) block[j - oc_begin] = xi[j];
      for (j = oc_begin; j < oc_end; ++j) {
        yi[j] = residual->fast_ok ? (dsp_element)add_clamp(
                                        ib_dsp_add_value(block[j - oc_begin], projected[j], residual), &residual->fast)
                                  : (dsp_element)tf_quantized_add_sub(block[j - oc_begin], projected[j],
                                                                      residual->params, 0);
      }
    }
  }
}

/* The whole expand window at origin (batch n, input row iy0, col ix0) into
 * x, tap by tap in a weight row's order: an in-bounds tap's channels, a
 * padded tap's as `pad` (the element that widens to zero), then `pad` up to
 * the next group of four. A window wholly in bounds whose rows are runs of
 * input (dilation 1 along a row) is copied a word at a time. */
static void ib_dsp_gather_window(const tf_view* input, int32_t n, int32_t iy0, int32_t ix0, const conv_window* win,
                                 int32_t channels, dsp_element pad, dsp_element* x) {
  const dsp_element* image = (const dsp_element*)input->data + n * input->strides[0];
  const int32_t elements = win->kernel_h * win->kernel_w * channels;
  const int32_t last_iy = iy0 + (win->kernel_h - 1) * win->dilation_h, last_ix = ix0 + (win->kernel_w - 1) * win->dilation_w;
  int32_t ky, kx, c;
  if (iy0 >= 0 && ix0 >= 0 && last_iy < input->shape[1] && last_ix < input->shape[2] && win->dilation_w == 1 &&
      input->strides[2] == channels) {
    const int32_t run = win->kernel_w * channels;
    const ptrdiff_t row_step = (ptrdiff_t)win->dilation_h * input->strides[1];
    const dsp_element* row = image + iy0 * input->strides[1] + ix0 * channels;
    if (run >= 4) {
      /* A run's last word ends at its last element (it may overlap the
       * word before it): nothing is read past the run. */
      for (ky = 0; ky < win->kernel_h; ++ky, row += row_step, x += run) {
        for (c = 0; c < run - 4; c += 4) tf_store_u32(x + c, tf_load_u32(row + c));
        tf_store_u32(x + run - 4, tf_load_u32(row + run - 4));
      }
    } else {
      for (ky = 0; ky < win->kernel_h; ++ky, row += row_step, x += run) {
        for (c = 0; c < run; ++c) x[c] = row[c];
      }
    }
  } else {
    for (ky = 0; ky < win->kernel_h; ++ky) {
      const int32_t iy = iy0 + ky * win->dilation_h;
      const int32_t row_in = iy >= 0 && iy < input->shape[1];
      for (kx = 0; kx < win->kernel_w; ++kx, x += channels) {
        const int32_t ix = ix0 + kx * win->dilation_w;
        if (row_in && ix >= 0 && ix < input->shape[2]) {
          const dsp_element* tap = image + iy * input->strides[1] + ix * input->strides[2];
          for (c = 0; c < channels; ++c) x[c] = tap[c];
        } else {
          for (c = 0; c < channels; ++c) x[c] = pad;
        }
      }
    }
  }
  for (c = elements; c & 3; ++c) *x++ = pad;
}

/* How the expand reads a mid's window and lays out its weights: a 1x1
 * expand without padding reads its one input pixel (every mid's window in
 * bounds), a stem convolution's window (segment_expand_group 2) is gathered,
 * both with channel-pair weights (ib_dsp_pointwise); otherwise the segment
 * conv kernel's paths find its taps, its weights in the IR layout.
 * exec/bind_segment.cc's expands_in_groups says the same. */
typedef enum ib_dsp_expand_kind { IB_DSP_EXPAND_TAPS, IB_DSP_EXPAND_PIXEL, IB_DSP_EXPAND_GATHERED } ib_dsp_expand_kind;

/* `count` (1 to 3) mid pixels from position `first` in traversal order into
 * their ring slots: a 1x1 expand's in one pass (ib_dsp_pointwise_triple, the
 * last repeated when fewer, its widened inputs in `columns`); one or two of a
 * stem convolution's (segment_expand_group: a window of up to
 * TF_SEGMENT_PAIRED_WINDOW_MAX) the same way, the windows gathered first
 * (ib_dsp_gather_window, ib_dsp_pointwise_pair, a lone mid twice); otherwise
 * one after the other. */
static void ib_dsp_expand(const tf_view* input, int32_t first, int32_t count, int32_t mids, int32_t mid_rows,
                          int32_t mid_cols, const conv_window* win, const conv_segment_dsp_call* expand,
                          const ib_dsp_pointwise* expand_stage, ib_dsp_expand_kind kind, dsp_element* ring,
                          int32_t ring_pixels, int32_t mid_channels, uint64_t* columns, int32_t descending) {
  const dsp_element* x[3];
  dsp_element* y[3];
  int32_t mn[3], iy0[3], ix0[3], i;
  for (i = 0; i < count; ++i) {
    const int32_t mid = segment_pixel(first + i, mids, descending);
    mn[i] = mid / (mid_rows * mid_cols);
    iy0[i] = mid / mid_cols % mid_rows * win->stride_h - win->pad_top;
    ix0[i] = mid % mid_cols * win->stride_w - win->pad_left;
    y[i] = ring + (ptrdiff_t)(mid % ring_pixels) * mid_channels;
  }
  if (kind == IB_DSP_EXPAND_PIXEL) {
    const dsp_element* const image = (const dsp_element*)input->data;
    for (i = 0; i < count; ++i) {
      x[i] = image + mn[i] * input->strides[0] + iy0[i] * input->strides[1] + ix0[i] * input->strides[2];
    }
    for (i = count; i < 3; ++i) x[i] = x[count - 1], y[i] = y[count - 1];
    ib_dsp_pointwise_triple(x, expand->channels, expand_stage, columns, y);
  } else if (kind == IB_DSP_EXPAND_GATHERED) {
    dsp_element windows[2][TF_SEGMENT_PAIRED_WINDOW_MAX];
    const dsp_element pad = (dsp_element)(-expand->x_offset);
    for (i = 0; i < count; ++i) {
      ib_dsp_gather_window(input, mn[i], iy0[i], ix0[i], win, expand->channels, pad, windows[i]);
    }
    ib_dsp_pointwise_pair(windows[0], windows[count - 1], expand_stage, columns, y[0], y[count - 1]);
  } else {
    for (i = 0; i < count; ++i) conv_segment_dsp_at(input, mn[i], iy0[i], ix0[i], win, expand, y[i]);
  }
}

#ifdef TF_INVERTED_BOTTLENECK_SEGMENT_DSP
void TF_INVERTED_BOTTLENECK_SEGMENT_DSP(const tf_view* input, const tf_view* output,
                                        const tf_inverted_bottleneck_params* params, uint8_t* workspace,
                                        int32_t descending) {
  const tf_conv_params* dw = params->depthwise;
  const conv_window expand_window = conv_segment_window(params->expand);
  const conv_segment_dsp_call expand = conv_segment_dsp_prepare(input, params->expand, &expand_window, descending);
  const ib_dsp_pointwise expand_stage = ib_dsp_make_pointwise(params->expand, (int32_t)expand.weight_row);
  const ib_dsp_pointwise project = ib_dsp_make_pointwise(params->project, params->project->in_channels);
  const dsp_clamp dw_clamp = dsp_make_clamp(dw);
  const int32_t mid_rows = params->mid_rows, mid_cols = params->mid_cols, mid_channels = dw->out_channels;
  const int32_t out_rows = output->shape[1], out_cols = output->shape[2], co = params->project->out_channels;
  const int32_t pixels = output->shape[0] * out_rows * out_cols;
  const int32_t mids = output->shape[0] * mid_rows * mid_cols;
  const int32_t ring_pixels = params->ring_pixels;
  dsp_element* ring = (dsp_element*)(void*)workspace;
  const ptrdiff_t ring_elements = (ptrdiff_t)ring_pixels * mid_channels;
  const dsp_element* const ring_end = ring + ring_elements;
  const int32_t dw_dilation_h = dw->dilation_h, dw_dilation_w = dw->dilation_w;
  /* A window row's next tap; less than the ring (which holds a window row). */
  const ptrdiff_t tap_step = (ptrdiff_t)dw_dilation_w * mid_channels;
  const int32_t row_slots = dw_dilation_h * mid_cols;
  /* Then a group's three depthwise pixels and, with a residual, three
   * projected pixels. */
  dsp_element* dw_pixels = ring + ring_elements;
  dsp_element* projected = dw_pixels + 3 * mid_channels;
  /* The group's widened expand inputs or depthwise pixels: the first 8-byte
   * boundary after them. */
  uint64_t* columns =
      (uint64_t*)(void*)(((uintptr_t)(projected + (params->add ? 3 * co : 0)) + 7u) & ~(uintptr_t)7u);
  const dsp_element* taps[TF_SEGMENT_MAX_TAPS];
  const dsp_element* x[3];
  dsp_element* y[3];
  ib_dsp_residual residual;
  const int32_t group =
      segment_expand_group(params->expand->kernel_h, params->expand->kernel_w, params->expand->in_channels);
  const ib_dsp_expand_kind expand_kind =
      group == 2 ? IB_DSP_EXPAND_GATHERED
      : params->expand->kernel_h == 1 && params->expand->kernel_w == 1 && expand_window.pad_top == 0 &&
              expand_window.pad_left == 0
          ? IB_DSP_EXPAND_PIXEL
          : IB_DSP_EXPAND_TAPS;
  int32_t t, i, ky, kx, last, step, next = 0; /* mid pixels computed so far, in traversal order */
  /* The output pixel at traversal position t + i, stepped along with it
   * rather than divided out of it. */
  int32_t n = descending ? output->shape[0] - 1 : 0, oy = descending ? out_rows - 1 : 0;
  int32_t ox = descending ? out_cols - 1 : 0;
  residual.params = params->add;
  residual.fast_ok = params->add != NULL && add_fast_init(params->add, &residual.fast);
  /* Output pixels in groups of three traversal positions (3i, 3i + 1,
   * 3i + 2), the last group shorter: the depthwise pixels, then the
   * projections, then each pixel's residual loads and stores in order. */
  for (t = 0; t < pixels; t += 3) {
    const int32_t count = pixels - t < 3 ? pixels - t : 3;
    for (i = 0; i < count; ++i) {
      const int32_t iy0 = oy * dw->stride_h - dw->pad_top, ix0 = ox * dw->stride_w - dw->pad_left;
      int32_t ky_begin = 0, ky_end = dw->kernel_h, kx_begin = 0, kx_end = dw->kernel_w, needed;
      if (iy0 < 0 || iy0 + (ky_end - 1) * dw_dilation_h >= mid_rows) {
        conv_tap_range(iy0, dw_dilation_h, dw->kernel_h, mid_rows, &ky_begin, &ky_end);
      }
      if (ix0 < 0 || ix0 + (kx_end - 1) * dw_dilation_w >= mid_cols) {
        conv_tap_range(ix0, dw_dilation_w, dw->kernel_w, mid_cols, &kx_begin, &kx_end);
      }
      /* The mid pixel this output needs last in traversal order (computed
       * with the rest of its group: segment_last_computed_mid). */
      needed = descending
                   ? (n * mid_rows + iy0 + ky_begin * dw_dilation_h) * mid_cols + ix0 + kx_begin * dw_dilation_w
                   : (n * mid_rows + iy0 + (ky_end - 1) * dw_dilation_h) * mid_cols + ix0 +
                         (kx_end - 1) * dw_dilation_w;
      for (last = segment_last_computed_mid(segment_pixel(needed, mids, descending), mids, group); next <= last;
           next += step) {
        step = last - next + 1 < group ? last - next + 1 : group;
        ib_dsp_expand(input, next, step, mids, mid_rows, mid_cols, &expand_window, &expand, &expand_stage, expand_kind,
                      ring, ring_pixels, mid_channels, columns, descending);
      }
      /* One division a pixel: a window row's first slot follows the row
       * before's, and along a row a tap's slot follows the previous one's,
       * each wrapping at the ring's end (which holds two window rows when a
       * window has them). */
      {
        const int32_t span = (kx_end - kx_begin - 1) * dw_dilation_w;
        const dsp_element** tap_out = taps;
        int32_t slot = ((n * mid_rows + iy0 + ky_begin * dw_dilation_h) * mid_cols + ix0 + kx_begin * dw_dilation_w) %
                       ring_pixels;
        for (ky = ky_begin; ky < ky_end; ++ky) {
          const dsp_element* tap = ring + (ptrdiff_t)slot * mid_channels;
          if (slot + span < ring_pixels) {
            for (kx = kx_begin; kx < kx_end; ++kx, tap += tap_step) *tap_out++ = tap;
          } else {
            for (kx = kx_begin; kx < kx_end; ++kx) {
              *tap_out++ = tap;
              tap += tap_step;
              if (tap >= ring_end) tap -= ring_elements;
            }
          }
          slot += row_slots;
          if (slot >= ring_pixels) slot -= ring_pixels;
        }
      }
      (dw->requant_folded != NULL ? ib_dsp_depthwise_folded : ib_dsp_depthwise_plain)(
          taps, ky_begin * dw->kernel_w + kx_begin, ky_end - ky_begin, kx_end - kx_begin, dw, &dw_clamp,
          dw_pixels + i * mid_channels);
      x[i] = (const dsp_element*)input->data + n * input->strides[0] + oy * input->strides[1] + ox * input->strides[2];
      y[i] = (dsp_element*)output->data + n * output->strides[0] + oy * output->strides[1] + ox * output->strides[2];
      if (descending) {
        if (--ox < 0) ox = out_cols - 1, oy = oy > 0 ? oy - 1 : (--n, out_rows - 1);
      } else if (++ox == out_cols) {
        ox = 0, oy = oy + 1 < out_rows ? oy + 1 : (++n, 0);
      }
    }
    {
      /* A short group repeats its last pixel: without a residual its
       * output pixel is stored again, the same values. */
      const dsp_element* dw_of[3];
      dsp_element* projected_to[3];
      for (i = 0; i < 3; ++i) {
        const int32_t k = i < count ? i : count - 1;
        dw_of[i] = dw_pixels + k * mid_channels;
        projected_to[i] = params->add == NULL ? y[k] : projected + k * co;
      }
      ib_dsp_pointwise_triple(dw_of, mid_channels, &project, columns, projected_to);
    }
    if (params->add != NULL) {
      ib_dsp_add_residual(projected, x, y, count, co, &residual, descending);
    }
  }
}
#endif
