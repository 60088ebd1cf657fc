/* tf_qs8_dwconv2d_direct_inplace: int8 DepthwiseConv2D written over its own input through a line buffer (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_DWCONV_INPLACE tf_qs8_dwconv2d_direct_inplace
#include "tinyfit/kernel_templates/dwconv2d_direct.h"
