/* tf_qs8_conv2d_im2col_wide_rows__dsp: int8 Conv2D, a range of output rows, partial im2col + 16-bit SIMD GEMM over weights the compiler widened (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT int8_t
#define TF_DSP_EXTEND tf_sxtab16
#define TF_DSP_UNSIGNED 0
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_CONV_IM2COL_DSP_ROWS tf_qs8_conv2d_im2col_wide_rows__dsp
#define TF_CONV_IM2COL_DSP_WIDE
#include "tinyfit/kernel_templates/conv2d_im2col_dsp.h"
