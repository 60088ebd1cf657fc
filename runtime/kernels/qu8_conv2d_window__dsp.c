/* tf_qu8_conv2d_window__dsp: uint8 Conv2D, a chunk of one or two output channels (or more), 16-bit SIMD dot products of each window row, no workspace (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT uint8_t
#define TF_DSP_EXTEND tf_uxtab16
#define TF_DSP_UNSIGNED 1
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_CONV_WINDOW_DSP tf_qu8_conv2d_window__dsp
#include "tinyfit/kernel_templates/conv2d_window_dsp.h"
