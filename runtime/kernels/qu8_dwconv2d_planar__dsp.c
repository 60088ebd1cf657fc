/* tf_qu8_dwconv2d_planar__dsp: uint8 DepthwiseConv2D 3x3 stride 1 through channel planes, 16-bit SIMD (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT uint8_t
#define TF_DSP_EXTEND tf_uxtab16
#define TF_DSP_UNSIGNED 1
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_DWCONV_PLANAR_DSP tf_qu8_dwconv2d_planar__dsp
#include "tinyfit/kernel_templates/dwconv2d_planar_dsp.h"
