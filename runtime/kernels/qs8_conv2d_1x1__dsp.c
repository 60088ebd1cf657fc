/* tf_qs8_conv2d_1x1__dsp: int8 1x1 Conv2D, whole or a chunk of output channels, 16-bit SIMD dot products (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT int8_t
#define TF_DSP_EXTEND tf_sxtab16
#define TF_DSP_UNSIGNED 0
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_POINTWISE_DSP tf_qs8_conv2d_1x1__dsp
#include "tinyfit/kernel_templates/dot_dsp.h"
