/* tf_qu8_inverted_bottleneck_segment__dsp: uint8 fused inverted bottleneck in segment order with 16-bit SIMD, its output may overlap its input (tinyfit/segment.h). */
#include "tinyfit/segment.h"

#define TF_DSP_ELEMENT uint8_t
#define TF_DSP_EXTEND tf_uxtab16
#define TF_DSP_UNSIGNED 1
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_INVERTED_BOTTLENECK_SEGMENT_DSP tf_qu8_inverted_bottleneck_segment__dsp
#include "tinyfit/kernel_templates/inverted_bottleneck_segment_dsp.h"
