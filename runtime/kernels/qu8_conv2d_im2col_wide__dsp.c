/* tf_qu8_conv2d_im2col_wide__dsp: uint8 Conv2D, whole or a chunk of output channels, partial im2col + 16-bit SIMD GEMM over weights the compiler widened (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT uint8_t
#define TF_DSP_EXTEND tf_uxtab16
#define TF_DSP_UNSIGNED 1
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_CONV_IM2COL_DSP tf_qu8_conv2d_im2col_wide__dsp
#define TF_CONV_IM2COL_DSP_WIDE
#include "tinyfit/kernel_templates/conv2d_im2col_dsp.h"
