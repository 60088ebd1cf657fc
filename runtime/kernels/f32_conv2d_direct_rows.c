/* tf_f32_conv2d_direct_rows: float32 Conv2D, a range of output rows (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#define TF_CONV_DIRECT_ROWS tf_f32_conv2d_direct_rows
#include "tinyfit/kernel_templates/conv2d_direct.h"
