/* tf_qu8_fully_connected_direct__dsp: uint8 FullyConnected, whole or a chunk of outputs, 16-bit SIMD dot products (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT uint8_t
#define TF_DSP_EXTEND tf_uxtab16
#define TF_DSP_UNSIGNED 1
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_FC_DSP tf_qu8_fully_connected_direct__dsp
#include "tinyfit/kernel_templates/dot_dsp.h"
