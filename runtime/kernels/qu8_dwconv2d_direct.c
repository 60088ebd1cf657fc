/* tf_qu8_dwconv2d_direct: uint8 (legacy, per-tensor weight zero point) DepthwiseConv2D, whole or a chunk of channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT uint8_t
#include "conv_quantized.inc"
#define TF_DWCONV_DIRECT tf_qu8_dwconv2d_direct
#include "dwconv2d_direct.inc"
