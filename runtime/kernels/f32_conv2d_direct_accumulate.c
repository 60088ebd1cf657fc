/* tf_f32_conv2d_direct_accumulate: float32 Conv2D accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "conv_float.inc"
#define TF_CONV_ACCUMULATE tf_f32_conv2d_direct_accumulate
#include "conv2d_direct.inc"
