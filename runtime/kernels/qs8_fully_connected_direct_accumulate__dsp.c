/* tf_qs8_fully_connected_direct_accumulate__dsp: int8 FullyConnected accumulate of a chunk of input channels, 16-bit SIMD dot products (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT int8_t
#define TF_DSP_EXTEND tf_sxtab16
#define TF_DSP_UNSIGNED 0
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_FC_DSP_ACCUMULATE tf_qs8_fully_connected_direct_accumulate__dsp
#include "tinyfit/kernel_templates/dot_dsp.h"
