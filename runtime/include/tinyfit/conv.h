/* Conv-family kernels: Conv2D, DepthwiseConv2D, FullyConnected, in int8
 * (qs8), legacy uint8 (qu8) and float32 (f32), direct convolution.
 *
 * Views are NHWC (runtime.h) with channel stride 1; every other stride is
 * honoured, so a view may be a channel slice of a larger tensor. Weights keep
 * the IR layout: Conv2D w[Cout][KH][KW][Cin/groups], DepthwiseConv2D
 * w[KH][KW][Cin*multiplier], FullyConnected w[Out][In] (In in the input's
 * row-major (h, w, c) order). Quantized kernels follow TFLite's integer
 * semantics bit for bit (int32 sums of (x - x_zp) * (w - w_zp), int32 bias,
 * per-channel Q31 multiplier and shift with TFLite's double rounding,
 * output zero point, clamp); weights have one zero point per tensor.
 *
 * Partial execution (PEX, plan.h CallMode):
 *  - whole / chunk: output channels [out_begin, out_end) of the node, written
 *    to an output view whose channel 0 is out_begin (a whole output is 0, Cout);
 *  - accumulate (Conv2D with groups == 1, FullyConnected): the input view holds
 *    the node's input channels [in_begin, in_begin + input->shape[3]) and their
 *    contribution is added to an accumulator view of the output's shape;
 *  - finalize: accumulator + bias, requantised and clamped, into the output.
 * Accumulators of 32 bits (int32; float for f32) are exact. Accumulators of
 * 16 or 8 bits (PEX section 3.4, not exact) hold the running sum in units of
 * output_scale / 2^(bits-8), saturated to their range: each iteration adds
 * round(M' * chunk_sum) with M' = the channel's multiplier times 2^(bits-8),
 * and finalize adds the bias requantised the same way, divides by 2^(bits-8)
 * rounding half away from zero, adds the output zero point and clamps.
 */
#ifndef TINYFIT_CONV_H_
#define TINYFIT_CONV_H_

#include "tinyfit/requantize.h"
#include "tinyfit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything a conv-family call needs besides its views: what generated code
 * keeps in flash. Fields an operator does not use are 0 (or NULL). */
typedef struct tf_conv_params {
  const void* weights;        /* IR layout (above); int8_t, uint8_t or float; a __dsp kernel's own layout
                                 where its declaration says so */
  const void* bias;           /* [out_channels]: int32_t (qs8, qu8) or float (f32) */
  const int32_t* multiplier;  /* [out_channels] Q31 requantisation multiplier (qs8, qu8) */
  const int32_t* shift;       /* [out_channels] its power of two (> 0: left) */
  const int32_t* weight_sums; /* [out_channels] sum of each channel's weights (qs8, qu8 Conv2D and
                                 FullyConnected): the input zero point's share, hoisted */
  const tf_requant_channel* requant; /* [out_channels] (__dsp kernels): multiplier and shift in the
                                        form of requantize.h */
  const tf_requant_folded* requant_folded; /* [out_channels] or NULL (__dsp kernels that read it):
                                              requant with the output zero point folded in
                                              (requantize.h), when every channel has such a record */
  int32_t kernel_h, kernel_w;
  int32_t stride_h, stride_w;
  int32_t dilation_h, dilation_w;
  int32_t pad_top, pad_left;
  int32_t groups;             /* Conv2D groups (1: ordinary) */
  int32_t depth_multiplier;   /* DepthwiseConv2D: output channel c reads input c / multiplier */
  int32_t in_channels;        /* last axis of the node's input */
  int32_t out_channels;       /* last axis of the node's output */
  int32_t in_features;        /* FullyConnected: In (a multiple of in_channels) */
  int32_t input_offset;       /* -(input zero point) */
  int32_t weight_offset;      /* -(weight zero point) */
  int32_t output_offset;      /* output zero point */
  int32_t activation_min;     /* quantized clamp of the output */
  int32_t activation_max;
  float float_min;            /* f32 clamp of the output (+-FLT_MAX when none) */
  float float_max;
} tf_conv_params;

/* Conv2D, whole or a chunk of output channels [out_begin, out_end). */
void tf_qs8_conv2d_direct(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                          int32_t out_begin, int32_t out_end);
void tf_qu8_conv2d_direct(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                          int32_t out_begin, int32_t out_end);
void tf_f32_conv2d_direct(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                          int32_t out_begin, int32_t out_end);

/* Conv2D over a part of the output: the output view shows the node's output
 * rows, cols and channels from output->origin (rows [origin[1], + shape[1]),
 * channels [origin[3], + shape[3]), ...); the input view shows the node's
 * input rows and cols from input->origin, all channels, and must hold every
 * row (col) of the tensor those outputs' windows read: rows outside it are
 * the padding at the tensor's borders (plan/verify_plan.h checks the views,
 * plan/lower_row_loop.h makes them). */
void tf_qs8_conv2d_direct_rows(const tf_view* input, const tf_view* output, const tf_conv_params* params);
void tf_qu8_conv2d_direct_rows(const tf_view* input, const tf_view* output, const tf_conv_params* params);
void tf_f32_conv2d_direct_rows(const tf_view* input, const tf_view* output, const tf_conv_params* params);

/* Conv2D (groups == 1), the contribution of input channels starting at
 * in_begin added to `accumulator` (int32_t, int16_t or int8_t elements for
 * accumulator_bits 32, 16, 8; always float for f32, whatever the bits); the
 * first iteration overwrites it. */
void tf_qs8_conv2d_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                     const tf_conv_params* params, int32_t in_begin,
                                     int32_t accumulator_bits, int32_t first_iteration);
void tf_qu8_conv2d_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                     const tf_conv_params* params, int32_t in_begin,
                                     int32_t accumulator_bits, int32_t first_iteration);
void tf_f32_conv2d_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                     const tf_conv_params* params, int32_t in_begin,
                                     int32_t accumulator_bits, int32_t first_iteration);

/* DepthwiseConv2D, output channels [out_begin, out_end); the input view's
 * channel 0 is the node's input channel in_begin (0 for a whole input). */
void tf_qs8_dwconv2d_direct(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                            int32_t out_begin, int32_t out_end, int32_t in_begin);
void tf_qu8_dwconv2d_direct(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                            int32_t out_begin, int32_t out_end, int32_t in_begin);
void tf_f32_dwconv2d_direct(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                            int32_t out_begin, int32_t out_end, int32_t in_begin);

/* DepthwiseConv2D over a part of the output, as conv2d_direct_rows: output
 * channels [output->origin[3], + shape[3]) from an input view whose channel 0
 * is the node's input channel input->origin[3] (output channel oc reads input
 * channel oc / depth_multiplier). */
void tf_qs8_dwconv2d_direct_rows(const tf_view* input, const tf_view* output, const tf_conv_params* params);
void tf_qu8_dwconv2d_direct_rows(const tf_view* input, const tf_view* output, const tf_conv_params* params);
void tf_f32_dwconv2d_direct_rows(const tf_view* input, const tf_view* output, const tf_conv_params* params);

/* DepthwiseConv2D (batch 1, multiplier 1, whole) written over its own input
 * (the output view shares the input's bytes, row r of Wo * C elements at
 * r * Wo * C): analysis/inplace.h's row-wise schedule through a line buffer of
 * `line_rows` output rows in `workspace`. */
void tf_qs8_dwconv2d_direct_inplace(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    uint8_t* workspace, int32_t line_rows);
void tf_qu8_dwconv2d_direct_inplace(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    uint8_t* workspace, int32_t line_rows);
void tf_f32_dwconv2d_direct_inplace(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    uint8_t* workspace, int32_t line_rows);

/* FullyConnected on an output view of [B, Out] (shape {1, 1, B, Out}). The
 * input's features are its channels (rows over n, h, w), its (w, c) (rows over
 * n, h) or its (h, w, c) (rows over n), as in_features / in_channels says. */
void tf_qs8_fully_connected_direct(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                   int32_t out_begin, int32_t out_end);
void tf_qu8_fully_connected_direct(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                   int32_t out_begin, int32_t out_end);
void tf_f32_fully_connected_direct(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                   int32_t out_begin, int32_t out_end);
void tf_qs8_fully_connected_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                              const tf_conv_params* params, int32_t in_begin,
                                              int32_t accumulator_bits, int32_t first_iteration);
void tf_qu8_fully_connected_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                              const tf_conv_params* params, int32_t in_begin,
                                              int32_t accumulator_bits, int32_t first_iteration);
void tf_f32_fully_connected_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                              const tf_conv_params* params, int32_t in_begin,
                                              int32_t accumulator_bits, int32_t first_iteration);

/* Finalize of a Conv2D or FullyConnected accumulate loop: every element of
 * `accumulator` (channel = last axis) to the same index of `output`. */
void tf_qs8_conv_finalize(const tf_view* accumulator, const tf_view* output, const tf_conv_params* params,
                          int32_t accumulator_bits);
void tf_qu8_conv_finalize(const tf_view* accumulator, const tf_view* output, const tf_conv_params* params,
                          int32_t accumulator_bits);
void tf_f32_conv_finalize(const tf_view* accumulator, const tf_view* output, const tf_conv_params* params,
                          int32_t accumulator_bits);

/* --- Float32 fast primitives (plain C; the FPU of a Cortex-M4F / M7) ---
 * Results equal the direct loops' up to float rounding (sums in another
 * order, Winograd's transforms); the compiler checks them against the
 * reference within its float tolerance. */

/* Conv2D as partial im2col + GEMM (kernel_templates/conv2d_im2col_float.h):
 * weights in the IR layout; `workspace` (4-byte aligned) of
 * tf_f32_conv2d_im2col_workspace_bytes(K) bytes, K = KH * KW * Cin / groups.
 * Whole / chunk and rows calls. */
#define TF_F32_CONV_IM2COL_PIXELS 4
static inline int32_t tf_f32_conv2d_im2col_workspace_bytes(int32_t k) {
  return k * TF_F32_CONV_IM2COL_PIXELS * (int32_t)sizeof(float);
}
void tf_f32_conv2d_im2col(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                          uint8_t* workspace, int32_t out_begin, int32_t out_end);
void tf_f32_conv2d_im2col_rows(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                               uint8_t* workspace);

/* Conv2D 3x3, stride 1, dilation 1, groups 1 by Winograd F(2x2, 3x3)
 * (kernel_templates/conv2d_winograd_float.h): weights transformed by the
 * compiler, [ceil(Cout/4)][4][Cin][4][4] floats; `workspace` (4-byte
 * aligned) of tf_f32_conv2d_winograd_workspace_bytes(Cin) bytes. Whole /
 * chunk and rows calls. */
static inline int32_t tf_f32_conv2d_winograd_workspace_bytes(int32_t in_channels) {
  return in_channels * 16 * (int32_t)sizeof(float);
}
void tf_f32_conv2d_winograd(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                            uint8_t* workspace, int32_t out_begin, int32_t out_end);
void tf_f32_conv2d_winograd_rows(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                 uint8_t* workspace);

/* --- __dsp kernels (tinyfit/dsp.h: Cortex-M DSP extension, portable C elsewhere) ---
 * qs8 and qu8, bit-exact with the _direct kernels. They read params->requant
 * instead of multiplier / shift (the compiler calls them only when every
 * channel meets requantize.h's requirement) and never weight_sums. */

/* DepthwiseConv2D, multiplier 1, with int16 weights plus the weight offset
 * (kernel_templates/dwconv2d_dsp.h: w[ceil(C/4)][KH][KW][4] in 32-bit words of
 * two lanes); the same calls as the _direct kernels above. */
void tf_qs8_dwconv2d_direct__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                 int32_t out_begin, int32_t out_end, int32_t in_begin);
void tf_qu8_dwconv2d_direct__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                 int32_t out_begin, int32_t out_end, int32_t in_begin);
/* DepthwiseConv2D, multiplier 1, one channel at a time
 * (kernel_templates/dwconv2d_channel_dsp.h: weights plus the weight offset as
 * int32 w[C][KH][KW]); the same chunk calls as tf_*_dwconv2d_direct. */
void tf_qs8_dwconv2d_channel__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                  int32_t out_begin, int32_t out_end, int32_t in_begin);
void tf_qu8_dwconv2d_channel__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                  int32_t out_begin, int32_t out_end, int32_t in_begin);
void tf_qs8_dwconv2d_direct_rows__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params);
void tf_qu8_dwconv2d_direct_rows__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params);
void tf_qs8_dwconv2d_direct_inplace__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                         uint8_t* workspace, int32_t line_rows);
void tf_qu8_dwconv2d_direct_inplace__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                         uint8_t* workspace, int32_t line_rows);

/* DepthwiseConv2D 3x3, stride 1, dilation 1, multiplier 1, through 16-bit
 * channel planes of the window's rows (kernel_templates/dwconv2d_planar_dsp.h;
 * weights as the __dsp kernel above); whole / chunk calls as
 * tf_*_dwconv2d_direct, with a `workspace` (8-byte aligned) of
 * tf_dwconv2d_planar_workspace_bytes(output cols) bytes: four planes of three
 * rows of 2 * (P + 1) lanes and P pairs of int32 sums, P = ceil(output cols / 2). */
static inline int32_t tf_dwconv2d_planar_workspace_bytes(int32_t out_cols) {
  const int32_t pairs = (out_cols + 1) / 2;
  return 48 * (pairs + 1) + 8 * pairs;
}
void tf_qs8_dwconv2d_planar__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                 uint8_t* workspace, int32_t out_begin, int32_t out_end, int32_t in_begin);
void tf_qu8_dwconv2d_planar__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                 uint8_t* workspace, int32_t out_begin, int32_t out_end, int32_t in_begin);

/* Conv2D as partial im2col + GEMM (kernel_templates/conv2d_im2col_dsp.h):
 * weights int8 / uint8, K = KH * KW * Cin / groups per channel rounded up to
 * K4, a multiple of four, with zeros: whole / chunk and rows calls take them
 * in channel pairs, uint64_t w[ceil(Cout / 2)][K4 / 4] (channel 2i's four
 * taps of a group in the low word, 2i + 1's in the high word, zero past
 * Cout); accumulate calls take rows, w[Cout][K4] plus 4 zero bytes; `workspace` (8-byte aligned)
 * of tf_conv2d_im2col_workspace_bytes(K) bytes, K = the taps of one call
 * (accumulate: KH * KW * the input view's channels). Whole / chunk, rows
 * (as tf_*_conv2d_direct_rows) and accumulate (1x1 only: the chunk's weights
 * are then contiguous) calls. The _wide kernels take the whole / chunk and
 * rows calls' weights widened to int16 with the weight offset added,
 * uint64_t w[ceil(Cout / 2)][K4 / 4][2] (per pair and group of four taps,
 * channel 2i's lanes (w0, w2) and (w1, w3) in the first word, 2i + 1's in
 * the second): twice the flash, fewer instructions (the compiler widens a
 * 1x1 Conv2D's weights only within a flash budget). */
#define TF_CONV_IM2COL_PIXELS 3
static inline int32_t tf_conv2d_im2col_workspace_bytes(int32_t k) {
  const int32_t k4 = (k + 3) & ~3;
  return k4 * 2 * TF_CONV_IM2COL_PIXELS + k4;
}
void tf_qs8_conv2d_im2col__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                               uint8_t* workspace, int32_t out_begin, int32_t out_end);
void tf_qu8_conv2d_im2col__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                               uint8_t* workspace, int32_t out_begin, int32_t out_end);
void tf_qs8_conv2d_im2col_rows__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    uint8_t* workspace);
void tf_qu8_conv2d_im2col_rows__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    uint8_t* workspace);
void tf_qs8_conv2d_im2col_wide__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    uint8_t* workspace, int32_t out_begin, int32_t out_end);
void tf_qu8_conv2d_im2col_wide__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                    uint8_t* workspace, int32_t out_begin, int32_t out_end);
void tf_qs8_conv2d_im2col_wide_rows__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                         uint8_t* workspace);
void tf_qu8_conv2d_im2col_wide_rows__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                         uint8_t* workspace);
void tf_qs8_conv2d_im2col_accumulate__dsp(const tf_view* input, const tf_view* accumulator,
                                          const tf_conv_params* params, uint8_t* workspace, int32_t in_begin,
                                          int32_t accumulator_bits, int32_t first_iteration);
void tf_qu8_conv2d_im2col_accumulate__dsp(const tf_view* input, const tf_view* accumulator,
                                          const tf_conv_params* params, uint8_t* workspace, int32_t in_begin,
                                          int32_t accumulator_bits, int32_t first_iteration);

/* Conv2D (groups == 1) straight from the input window, each in-bounds
 * window row a SIMD dot product (kernel_templates/conv2d_window_dsp.h; no
 * workspace): weights in the IR layout; whole / chunk calls. For chunks of a
 * few output channels, where the im2col kernel would gather every patch again
 * per chunk. */
void tf_qs8_conv2d_window__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                               int32_t out_begin, int32_t out_end);
void tf_qu8_conv2d_window__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                               int32_t out_begin, int32_t out_end);

/* 1x1 Conv2D without padding, and FullyConnected, straight from the input
 * (kernel_templates/dot_dsp.h; no workspace): weights in the IR layout; the
 * same calls as the _direct kernels. FullyConnected needs each row's features
 * contiguous in the input view, and an accumulate call In == C. */
void tf_qs8_conv2d_1x1__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                            int32_t out_begin, int32_t out_end);
void tf_qu8_conv2d_1x1__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                            int32_t out_begin, int32_t out_end);
void tf_qs8_conv2d_1x1_rows__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params);
void tf_qu8_conv2d_1x1_rows__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params);
void tf_qs8_conv2d_1x1_accumulate__dsp(const tf_view* input, const tf_view* accumulator, const tf_conv_params* params,
                                       int32_t in_begin, int32_t accumulator_bits, int32_t first_iteration);
void tf_qu8_conv2d_1x1_accumulate__dsp(const tf_view* input, const tf_view* accumulator, const tf_conv_params* params,
                                       int32_t in_begin, int32_t accumulator_bits, int32_t first_iteration);
void tf_qs8_fully_connected_direct__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                        int32_t out_begin, int32_t out_end);
void tf_qu8_fully_connected_direct__dsp(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                                        int32_t out_begin, int32_t out_end);
void tf_qs8_fully_connected_direct_accumulate__dsp(const tf_view* input, const tf_view* accumulator,
                                                   const tf_conv_params* params, int32_t in_begin,
                                                   int32_t accumulator_bits, int32_t first_iteration);
void tf_qu8_fully_connected_direct_accumulate__dsp(const tf_view* input, const tf_view* accumulator,
                                                   const tf_conv_params* params, int32_t in_begin,
                                                   int32_t accumulator_bits, int32_t first_iteration);

#ifdef __cplusplus
}
#endif

#endif /* TINYFIT_CONV_H_ */
