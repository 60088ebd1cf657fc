/* tf_f32_conv2d_direct: float32 Conv2D, whole or a chunk of output channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "conv_float.inc"
#define TF_CONV_DIRECT tf_f32_conv2d_direct
#include "conv2d_direct.inc"
