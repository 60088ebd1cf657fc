/* tf_qu8_conv2d_direct_rows: uint8 (legacy, per-tensor weight zero point) Conv2D, a range of output rows (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT uint8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_CONV_DIRECT_ROWS tf_qu8_conv2d_direct_rows
#include "tinyfit/kernel_templates/conv2d_direct.h"
