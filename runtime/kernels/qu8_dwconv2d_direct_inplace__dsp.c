/* tf_qu8_dwconv2d_direct_inplace__dsp: uint8 DepthwiseConv2D written over its own input, 16-bit SIMD (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT uint8_t
#define TF_DSP_EXTEND tf_uxtab16
#define TF_DSP_UNSIGNED 1
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_DWCONV_DSP_INPLACE tf_qu8_dwconv2d_direct_inplace__dsp
#include "tinyfit/kernel_templates/dwconv2d_dsp.h"
