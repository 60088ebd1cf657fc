/* tf_qs8_conv2d_direct_rows: int8 Conv2D, a range of output rows (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_CONV_DIRECT_ROWS tf_qs8_conv2d_direct_rows
#include "tinyfit/kernel_templates/conv2d_direct.h"
