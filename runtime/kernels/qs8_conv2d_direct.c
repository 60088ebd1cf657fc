/* tf_qs8_conv2d_direct: int8 Conv2D, whole or a chunk of output channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_CONV_DIRECT tf_qs8_conv2d_direct
#include "tinyfit/kernel_templates/conv2d_direct.h"
