/* tf_f32_dwconv2d_direct_inplace: float32 DepthwiseConv2D written over its own input through a line buffer (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#define TF_DWCONV_INPLACE tf_f32_dwconv2d_direct_inplace
#include "tinyfit/kernel_templates/dwconv2d_direct.h"
