/* tf_qs8_inverted_bottleneck_segment__dsp: int8 fused inverted bottleneck in segment order with 16-bit SIMD, its output may overlap its input (tinyfit/segment.h). */
#include "tinyfit/segment.h"

#define TF_DSP_ELEMENT int8_t
#define TF_DSP_EXTEND tf_sxtab16
#define TF_DSP_UNSIGNED 0
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_INVERTED_BOTTLENECK_SEGMENT_DSP tf_qs8_inverted_bottleneck_segment__dsp
#include "tinyfit/kernel_templates/inverted_bottleneck_segment_dsp.h"
