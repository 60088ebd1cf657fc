/* tf_f32_dwconv2d_direct_rows: float32 DepthwiseConv2D, a range of output rows (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#define TF_DWCONV_DIRECT_ROWS tf_f32_dwconv2d_direct_rows
#include "tinyfit/kernel_templates/dwconv2d_direct.h"
