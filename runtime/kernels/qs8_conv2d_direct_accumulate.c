/* tf_qs8_conv2d_direct_accumulate: int8 Conv2D accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_CONV_ACCUMULATE tf_qs8_conv2d_direct_accumulate
#include "tinyfit/kernel_templates/conv2d_direct.h"
