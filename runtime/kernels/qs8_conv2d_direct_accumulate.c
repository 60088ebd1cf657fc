/* tf_qs8_conv2d_direct_accumulate: int8 Conv2D accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "conv_quantized.inc"
#define TF_CONV_ACCUMULATE tf_qs8_conv2d_direct_accumulate
#include "conv2d_direct.inc"
