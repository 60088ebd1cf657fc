/* tf_qs8_dwconv2d_planar__dsp: int8 DepthwiseConv2D 3x3 stride 1 through channel planes, 16-bit SIMD (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT int8_t
#define TF_DSP_EXTEND tf_sxtab16
#define TF_DSP_UNSIGNED 0
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_DWCONV_PLANAR_DSP tf_qs8_dwconv2d_planar__dsp
#include "tinyfit/kernel_templates/dwconv2d_planar_dsp.h"
