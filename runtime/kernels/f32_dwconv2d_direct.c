/* tf_f32_dwconv2d_direct: float32 DepthwiseConv2D, whole or a chunk of channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#define TF_DWCONV_DIRECT tf_f32_dwconv2d_direct
#include "tinyfit/kernel_templates/dwconv2d_direct.h"
