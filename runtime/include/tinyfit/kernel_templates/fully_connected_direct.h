/* FullyConnected as a convolution (conv_core.h): w[Out][In] is the
 * w[Out][KH][KW][C] of a window over the input's feature axes, and the
 * output rows [B, Out] are re-viewed as the conv's output pixels. The
 * including file defines TF_FC_DIRECT or TF_FC_ACCUMULATE after its element
 * arithmetic. */
#include "tinyfit/kernel_templates/conv_core.h"

/* The window and output view of the equivalent conv. Features are the
 * channels (rows over n, h, w), (w, c) (rows over n, h) or (h, w, c) (rows
 * over n): in_features / in_channels is 1, W or H * W. */
static inline void fc_as_conv(const tf_view* input, const tf_view* output, const tf_conv_params* p,
                              conv_window* win, tf_view* pixels) {
  const int32_t positions = p->in_features / p->in_channels;
  const int32_t rows = input->shape[1], cols = input->shape[2];
  const int32_t row_stride = output->strides[2];
  win->kernel_h = positions > 1 && positions == rows * cols ? rows : 1;
  win->kernel_w = positions > 1 ? cols : 1;
  win->stride_h = win->stride_w = win->dilation_h = win->dilation_w = 1;
  win->pad_top = win->pad_left = 0;
  win->tap_channels = p->in_channels;
  win->group_out = 0;
  pixels->data = output->data;
  pixels->shape[0] = input->shape[0];
  pixels->shape[1] = rows - win->kernel_h + 1;
  pixels->shape[2] = cols - win->kernel_w + 1;
  pixels->shape[3] = output->shape[3];
  pixels->strides[3] = 1;
  pixels->strides[2] = row_stride;
  pixels->strides[1] = row_stride * pixels->shape[2];
  pixels->strides[0] = pixels->strides[1] * pixels->shape[1];
}

#ifdef TF_FC_DIRECT
void TF_FC_DIRECT(const tf_view* input, const tf_view* output, const tf_conv_params* params, int32_t out_begin,
                  int32_t out_end) {
  conv_window win;
  tf_view pixels;
  fc_as_conv(input, output, params, &win, &pixels);
  conv_run_core(input, &pixels, params, &win, out_begin, out_end, 0, 0, 32, 1);
}
#endif

#ifdef TF_FC_ACCUMULATE
void TF_FC_ACCUMULATE(const tf_view* input, const tf_view* accumulator, const tf_conv_params* params,
                      int32_t in_begin, int32_t accumulator_bits, int32_t first_iteration) {
  conv_window win;
  tf_view pixels;
  fc_as_conv(input, accumulator, params, &win, &pixels);
  conv_run_core(input, &pixels, params, &win, 0, params->out_channels, in_begin, 1, accumulator_bits,
                first_iteration);
}
#endif
