/* tf_qs8_dwconv2d_channel__dsp: int8 DepthwiseConv2D, multiplier 1, one channel at a time (partial execution's one-channel chunks), 3x3 windows in bounds unrolled (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_DSP_ELEMENT int8_t
#define TF_DSP_EXTEND tf_sxtab16
#define TF_DSP_UNSIGNED 0
#include "tinyfit/kernel_templates/conv_dsp_arithmetic.h"
#define TF_DWCONV_CHANNEL_DSP tf_qs8_dwconv2d_channel__dsp
#include "tinyfit/kernel_templates/dwconv2d_channel_dsp.h"
