/* tf_qs8_fully_connected_direct__dsp: int8 FullyConnected, whole or a chunk of outputs, 16-bit SIMD dot products (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT int8_t
#define TF_DSP_EXTEND tf_sxtab16
#define TF_DSP_UNSIGNED 0
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_FC_DSP tf_qs8_fully_connected_direct__dsp
#include "tinyfit/kernel_templates/dot_dsp.h"
