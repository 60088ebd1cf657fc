/* Overlap-tolerant ("segment") kernels (vMCU, MLSys 2024): the output may
 * share bytes with the input, as long as it starts at an offset the compiler
 * derived from the access order stated here (src/plan/segment_kernel.h
 * models exactly these loops; a change here must change it too). Input and
 * output are dense NHWC views that may overlap; nothing is `restrict`.
 *
 * Access order, `descending` == 0 (ascending):
 *  - output pixels in order (batch, row, col ascending);
 *  - per pixel, output channel blocks [0, B), [B, 2B), ..., the last one
 *    shorter when B does not divide the channels;
 *  - per block: every input byte the block needs is loaded (conv2d and
 *    fully_connected: every in-bounds tap, all input channels; dwconv2d: the
 *    block's channels of every in-bounds tap), then the block is stored.
 * `descending` != 0 is the mirror image: pixels from the last to the first,
 * blocks [C - B, C), [C - 2B, C - B), ..., the shorter one [0, r) last, so
 * stores move down through memory while loads stay ahead of them below.
 *
 * The arithmetic is that of the direct kernels (tinyfit/conv.h): bit for bit
 * TFLite's integer semantics for qs8 / qu8. */
#ifndef TINYFIT_SEGMENT_H_
#define TINYFIT_SEGMENT_H_

#include "tinyfit/conv.h"
#include "tinyfit/elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Output channels per store (B above); plan/segment_kernel.h's records use
 * the same numbers (exec/ checks that they agree). */
#define TF_SEGMENT_CONV_BLOCK 4
#define TF_SEGMENT_DWCONV_BLOCK 16
#define TF_SEGMENT_MID_BLOCK TF_SEGMENT_CONV_BLOCK /* the expand is a conv2d_segment pixel */

/* Conv2D, groups 1, whole (every output channel), any window. */
void tf_qs8_conv2d_segment(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                           int32_t descending);
void tf_qu8_conv2d_segment(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                           int32_t descending);
void tf_f32_conv2d_segment(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                           int32_t descending);

/* FullyConnected, whole: each output row is a pixel of the equivalent
 * convolution (tinyfit/conv.h's rows over n, h, w when the features are the
 * channels; one window over (w, c) or (h, w, c) otherwise). */
void tf_qs8_fully_connected_segment(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    int32_t descending);
void tf_qu8_fully_connected_segment(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    int32_t descending);
void tf_f32_fully_connected_segment(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    int32_t descending);

/* DepthwiseConv2D, multiplier 1, whole. */
void tf_qs8_dwconv2d_segment(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                             int32_t descending);
void tf_qu8_dwconv2d_segment(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                             int32_t descending);
void tf_f32_dwconv2d_segment(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                             int32_t descending);

/* The fused inverted bottleneck (vMCU section 5.2): expand (Conv2D, groups 1,
 * any window: the usual 1x1, or a stem conv), depthwise (multiplier 1),
 * 1x1 project, and when `add` is not NULL the quantized add of the block input
 * (a = the input, b = the projection), computed output pixel by output pixel.
 * The expanded ("mid") pixels are computed in traversal order just before
 * the first output pixel whose depthwise window needs them, in groups of
 * positions (segment_expand_group: three with a 1x1 expand, two with a
 * window of 4 to TF_SEGMENT_PAIRED_WINDOW_MAX input elements, else one), the
 * last group shorter (each reads its expand window of the input: all input channels of
 * every in-bounds tap, once per block of TF_SEGMENT_MID_BLOCK mid channels)
 * into a ring of `ring_pixels` mid pixels: mid pixel i (linear over batch,
 * rows, cols) lives in slot i mod ring_pixels. Per output pixel: the
 * depthwise into one mid pixel of workspace, then per block of
 * TF_SEGMENT_CONV_BLOCK output channels the projection, the residual block
 * of the input pixel (loaded), the block stored. The __dsp kernel takes the
 * output pixels in groups of three positions (3i, 3i + 1, 3i + 2), the last
 * shorter: the group's depthwise pixels (the later ones' expand reads moved
 * before the earlier ones' stores, which only makes reads earlier), then
 * their projections, then each pixel's residual loads and stores in the
 * order above. Workspace: (ring_pixels + 3) * mid_channels elements (the
 * ring, three depthwise pixels), with a residual 3 * out_channels more
 * (three projected pixels), then 8 + max(8 * G * E; 24 * floor(mid_channels
 * / 4)) bytes, G the expand's group, E = floor(Cin / 4) with a 1x1 expand,
 * ceil(KH * KW * Cin / 4) with another grouped one, else 0, where the __dsp
 * kernel widens a group's depthwise pixels and expand inputs (at the first 8-byte
 * boundary after the projected pixels; the portable kernel leaves all but
 * the ring and one depthwise pixel unused). */
typedef struct tf_inverted_bottleneck_params {
  const tf_conv_params* expand;
  const tf_conv_params* depthwise;
  const tf_conv_params* project;
  const tf_quantized_add_params* add; /* NULL without a residual */
  int32_t mid_rows, mid_cols;
  int32_t ring_pixels;
} tf_inverted_bottleneck_params;

void tf_qs8_inverted_bottleneck_segment(const tf_view* input, const tf_view* output,
                                        const tf_inverted_bottleneck_params* params, uint8_t* workspace,
                                        int32_t descending);
void tf_qu8_inverted_bottleneck_segment(const tf_view* input, const tf_view* output,
                                        const tf_inverted_bottleneck_params* params, uint8_t* workspace,
                                        int32_t descending);

/* The same with 16-bit SIMD (tinyfit/dsp.h: the Cortex-M DSP extension, its
 * portable C elsewhere), in exactly the access order above, for quantized
 * calls the __dsp kernels serve (int8 weights symmetric; requantisation
 * within tinyfit/requantize.h's range). Constants are the __dsp kernels'
 * (tinyfit/conv.h): weights in the IR layout (depthwise weights packed as
 * tf_*_dwconv2d_direct__dsp takes them), params->requant. */
void tf_qs8_conv2d_segment__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                int32_t descending);
void tf_qu8_conv2d_segment__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                int32_t descending);
void tf_qs8_fully_connected_segment__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                         int32_t descending);
void tf_qu8_fully_connected_segment__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                         int32_t descending);
void tf_qs8_dwconv2d_segment__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                  int32_t descending);
void tf_qu8_dwconv2d_segment__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                  int32_t descending);
void tf_qs8_inverted_bottleneck_segment__dsp(const tf_view* input, const tf_view* output,
                                             const tf_inverted_bottleneck_params* params, uint8_t* workspace,
                                             int32_t descending);
void tf_qu8_inverted_bottleneck_segment__dsp(const tf_view* input, const tf_view* output,
                                             const tf_inverted_bottleneck_params* params, uint8_t* workspace,
                                             int32_t descending);

#ifdef __cplusplus
}
#endif

#endif /* TINYFIT_SEGMENT_H_ */
