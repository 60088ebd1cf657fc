/* DepthwiseConv2D, direct, over the element arithmetic of conv_quantized_arithmetic.h
 * or conv_float_arithmetic.h (included first; the including file then defines
 * TF_DWCONV_DIRECT, TF_DWCONV_DIRECT_ROWS or TF_DWCONV_INPLACE). Output channel oc reads input
 * channel oc / depth_multiplier; weights w[KH][KW][Cout]. */
#include <stddef.h>
#include "tinyfit/kernel_templates/conv_taps.h"

/* Channels summed side by side when the multiplier is 1 (64 bytes of sums on
 * the stack). */
#define DWCONV_BLOCK 16

/* Output channels [out_begin, out_end) of the node into `output`, whose
 * (oy, ox) is the node's output (out_row + oy, out_col + ox), from an input
 * view whose channel 0 is the node's input channel in_begin and whose (0, 0)
 * is the node's input (in_row, in_col); rows and cols outside the input view
 * are the window's padding. */
static void dwconv_rows(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                        int32_t out_begin, int32_t out_end, int32_t in_begin, int32_t out_row, int32_t in_row,
                        int32_t out_col, int32_t in_col) {
  const conv_element* x = (const conv_element*)input->data;
  const conv_weight* weights = (const conv_weight*)params->weights;
  const int32_t x_offset = params->input_offset, w_offset = params->weight_offset;
  const int32_t multiplier = params->depth_multiplier;
  const ptrdiff_t xs0 = input->strides[0], xs1 = input->strides[1], xs2 = input->strides[2];
  const ptrdiff_t ys0 = output->strides[0], ys1 = output->strides[1], ys2 = output->strides[2];
  const ptrdiff_t tap_stride = params->out_channels; /* weights between neighbouring taps */
  const ptrdiff_t row_stride = (ptrdiff_t)params->kernel_w * tap_stride;
  int32_t n, oy, ox, oc, ky, kx;
  for (n = 0; n < output->shape[0]; ++n) {
    for (oy = 0; oy < output->shape[1]; ++oy) {
      const int32_t iy0 = (out_row + oy) * params->stride_h - params->pad_top - in_row;
      int32_t ky_begin, ky_end;
      conv_tap_range(iy0, params->dilation_h, params->kernel_h, input->shape[1], &ky_begin, &ky_end);
      for (ox = 0; ox < output->shape[2]; ++ox) {
        const int32_t ix0 = (out_col + ox) * params->stride_w - params->pad_left - in_col;
        const ptrdiff_t y_pixel = n * ys0 + oy * ys1 + ox * ys2;
        const conv_element* x_pixel;
        int32_t kx_begin, kx_end;
        conv_tap_range(ix0, params->dilation_w, params->kernel_w, input->shape[2], &kx_begin, &kx_end);
        x_pixel = x + n * xs0 + (iy0 + ky_begin * params->dilation_h) * xs1 +
                  (ix0 + kx_begin * params->dilation_w) * xs2;
        if (multiplier == 1) {
          /* Blocks of channels: contiguous input and weights per tap. */
          int32_t block_begin, c;
          for (block_begin = out_begin; block_begin < out_end; block_begin += DWCONV_BLOCK) {
            const int32_t count = out_end - block_begin < DWCONV_BLOCK ? out_end - block_begin : DWCONV_BLOCK;
            const conv_element* x_block = x_pixel + (block_begin - in_begin);
            const conv_weight* w_block = weights + ky_begin * row_stride + kx_begin * tap_stride + block_begin;
            conv_sum sum[DWCONV_BLOCK];
            for (c = 0; c < count; ++c) sum[c] = 0;
            for (ky = 0; ky < ky_end - ky_begin; ++ky) {
              for (kx = 0; kx < kx_end - kx_begin; ++kx) {
                const conv_element* xp = x_block + ky * params->dilation_h * xs1 + kx * params->dilation_w * xs2;
                const conv_weight* wp = w_block + ky * row_stride + kx * tap_stride;
                for (c = 0; c < count; ++c) sum[c] += conv_product(xp[c], wp[c], x_offset, w_offset);
              }
            }
            for (c = 0; c < count; ++c) {
              conv_store_output(output->data, y_pixel + (block_begin + c - out_begin), sum[c], block_begin + c, params);
            }
          }
          continue;
        }
        for (oc = out_begin; oc < out_end; ++oc) {
          const conv_element* x_channel = x_pixel + (oc / multiplier - in_begin);
          const conv_weight* w_channel = weights + ky_begin * row_stride + kx_begin * tap_stride + oc;
          conv_sum sum = 0;
          for (ky = 0; ky < ky_end - ky_begin; ++ky) {
            const conv_element* xp = x_channel + ky * params->dilation_h * xs1;
            const conv_weight* wp = w_channel + ky * row_stride;
            for (kx = 0; kx < kx_end - kx_begin; ++kx) {
              sum += conv_product(xp[kx * params->dilation_w * xs2], wp[kx * tap_stride], x_offset, w_offset);
            }
          }
          conv_store_output(output->data, y_pixel + (oc - out_begin), sum, oc, params);
        }
      }
    }
  }
}

#ifdef TF_DWCONV_DIRECT
void TF_DWCONV_DIRECT(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                      int32_t out_begin, int32_t out_end, int32_t in_begin) {
  dwconv_rows(input, output, params, out_begin, out_end, in_begin, 0, 0, 0, 0);
}
#endif

#ifdef TF_DWCONV_DIRECT_ROWS
/* The part of the output its view shows (rows, cols and channels from its
 * origin), from the part of the input the input view shows. */
void TF_DWCONV_DIRECT_ROWS(const tf_view* input, const tf_view* output, const tf_conv_params* params) {
  dwconv_rows(input, output, params, output->origin[3], output->origin[3] + output->shape[3], input->origin[3],
              output->origin[1], input->origin[1], output->origin[2], input->origin[2]);
}
#endif

#ifdef TF_DWCONV_INPLACE
#define DWCONV_INPLACE_ROWS dwconv_rows
typedef conv_element dwconv_inplace_element;
#include "tinyfit/kernel_templates/dwconv2d_inplace.h"
#endif
