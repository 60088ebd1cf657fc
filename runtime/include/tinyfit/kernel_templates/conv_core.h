/* The direct convolution loop shared by Conv2D and FullyConnected, over the
 * element arithmetic of conv_quantized_arithmetic.h or conv_float_arithmetic.h (included
 * first). Per output pixel the in-bounds tap range is computed once, so the
 * inner loop is a plain dot product over input channels contiguous in memory
 * (channel stride 1) against the weights' contiguous taps. */
#include <stddef.h>
#include "tinyfit/kernel_templates/conv_taps.h"

typedef struct conv_window {
  int32_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int32_t tap_channels;    /* weight elements per tap: the node's Cin / groups */
  int32_t group_out;       /* output channels per group; 0 when not grouped */
} conv_window;

/* For every output pixel of `output` and output channel oc in
 * [out_begin, out_end): the sum over in-bounds taps of the input view's
 * channels (grouped: the group's channels; otherwise all the view's channels,
 * which are the node's channels from in_begin), stored at channel
 * oc - out_begin of `output` by conv_store_output, or accumulated. */
static void conv_run_core(const tf_view* input, const tf_view* output, const tf_conv_params* p,
                          const conv_window* win, int32_t out_begin, int32_t out_end, int32_t in_begin,
                          int32_t accumulate, int32_t bits, int32_t first) {
  const conv_element* x = (const conv_element*)input->data;
  const conv_weight* weights = (const conv_weight*)p->weights;
  const int32_t x_offset = p->input_offset, w_offset = p->weight_offset;
  const int32_t in_rows = input->shape[1], in_cols = input->shape[2];
  const ptrdiff_t xs0 = input->strides[0], xs1 = input->strides[1], xs2 = input->strides[2];
  const ptrdiff_t ys0 = output->strides[0], ys1 = output->strides[1], ys2 = output->strides[2];
  const ptrdiff_t tap = win->tap_channels;
  const ptrdiff_t weight_row = (ptrdiff_t)win->kernel_h * win->kernel_w * tap;
  const int32_t channels = win->group_out ? win->tap_channels : input->shape[3];
  const ptrdiff_t weight_channel0 = win->group_out ? 0 : in_begin;
  int32_t n, oy, ox, oc, ky, kx, c;
  for (n = 0; n < output->shape[0]; ++n) {
    for (oy = 0; oy < output->shape[1]; ++oy) {
      const int32_t iy0 = oy * win->stride_h - win->pad_top;
      int32_t ky_begin, ky_end;
      conv_tap_range(iy0, win->dilation_h, win->kernel_h, in_rows, &ky_begin, &ky_end);
      for (ox = 0; ox < output->shape[2]; ++ox) {
        const int32_t ix0 = ox * win->stride_w - win->pad_left;
        const ptrdiff_t y_pixel = n * ys0 + oy * ys1 + ox * ys2;
        int32_t kx_begin, kx_end;
        conv_tap_range(ix0, win->dilation_w, win->kernel_w, in_cols, &kx_begin, &kx_end);
        for (oc = out_begin; oc < out_end; ++oc) {
          const conv_weight* w_row = weights + oc * weight_row + weight_channel0;
          const conv_element* x_pixel = x + n * xs0 + (win->group_out ? (oc / win->group_out) * tap : 0);
          conv_sum sum = 0;
          for (ky = ky_begin; ky < ky_end; ++ky) {
            const conv_element* x_row = x_pixel + (iy0 + ky * win->dilation_h) * xs1;
            const conv_weight* w_k = w_row + (ptrdiff_t)ky * win->kernel_w * tap;
            for (kx = kx_begin; kx < kx_end; ++kx) {
              const conv_element* xp = x_row + (ix0 + kx * win->dilation_w) * xs2;
              const conv_weight* wp = w_k + kx * tap;
              for (c = 0; c < channels; ++c) sum += conv_product(xp[c], wp[c], x_offset, w_offset);
            }
          }
          if (accumulate) {
            conv_store_accumulator(output->data, y_pixel + (oc - out_begin), sum, oc, p, bits, first);
          } else {
            conv_store_output(output->data, y_pixel + (oc - out_begin), sum, oc, p);
          }
        }
      }
    }
  }
}
