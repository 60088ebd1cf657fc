/* tf_qu8_conv2d_im2col_accumulate__dsp: uint8 1x1 Conv2D accumulate of a chunk of input channels, partial im2col + 16-bit SIMD GEMM (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT uint8_t
#define TF_DSP_EXTEND tf_uxtab16
#define TF_DSP_UNSIGNED 1
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_CONV_IM2COL_DSP_ACCUMULATE tf_qu8_conv2d_im2col_accumulate__dsp
#include "tinyfit/kernel_templates/conv2d_im2col_dsp.h"
