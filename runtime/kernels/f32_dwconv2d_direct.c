/* tf_f32_dwconv2d_direct: float32 DepthwiseConv2D, whole or a chunk of channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "conv_float.inc"
#define TF_DWCONV_DIRECT tf_f32_dwconv2d_direct
#include "dwconv2d_direct.inc"
