/* tf_qs8_dwconv2d_direct: int8 DepthwiseConv2D, whole or a chunk of channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "conv_quantized.inc"
#define TF_DWCONV_DIRECT tf_qs8_dwconv2d_direct
#include "dwconv2d_direct.inc"
