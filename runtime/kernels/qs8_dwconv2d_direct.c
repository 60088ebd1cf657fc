/* tf_qs8_dwconv2d_direct: int8 DepthwiseConv2D, whole or a chunk of channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_DWCONV_DIRECT tf_qs8_dwconv2d_direct
#include "tinyfit/kernel_templates/dwconv2d_direct.h"
