/* tf_qs8_conv2d_direct: int8 Conv2D, whole or a chunk of output channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "conv_quantized.inc"
#define TF_CONV_DIRECT tf_qs8_conv2d_direct
#include "conv2d_direct.inc"
