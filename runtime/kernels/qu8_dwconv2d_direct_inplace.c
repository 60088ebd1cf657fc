/* tf_qu8_dwconv2d_direct_inplace: uint8 (legacy, per-tensor weight zero point) DepthwiseConv2D written over its own input through a line buffer (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT uint8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_DWCONV_INPLACE tf_qu8_dwconv2d_direct_inplace
#include "tinyfit/kernel_templates/dwconv2d_direct.h"
