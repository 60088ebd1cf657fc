/* tf_qu8_conv2d_1x1_rows__dsp: uint8 1x1 Conv2D, a range of output rows, 16-bit SIMD dot products (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT uint8_t
#define TF_DSP_EXTEND tf_uxtab16
#define TF_DSP_UNSIGNED 1
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_POINTWISE_DSP_ROWS tf_qu8_conv2d_1x1_rows__dsp
#include "tinyfit/kernel_templates/dot_dsp.h"
