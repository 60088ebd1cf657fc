/* tf_qu8_dwconv2d_segment__dsp: uint8 DepthwiseConv2D in segment order with 16-bit SIMD, its output may overlap its input (tinyfit/segment.h). */
#include "tinyfit/segment.h"

#define TF_DSP_ELEMENT uint8_t
#define TF_DSP_EXTEND tf_uxtab16
#define TF_DSP_UNSIGNED 1
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_DWCONV_SEGMENT_DSP tf_qu8_dwconv2d_segment__dsp
#include "tinyfit/kernel_templates/dwconv2d_segment_dsp.h"
