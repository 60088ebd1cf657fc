/* tf_qu8_dwconv2d_direct_rows: uint8 (legacy, per-tensor weight zero point) DepthwiseConv2D, a range of output rows (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT uint8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_DWCONV_DIRECT_ROWS tf_qu8_dwconv2d_direct_rows
#include "tinyfit/kernel_templates/dwconv2d_direct.h"
