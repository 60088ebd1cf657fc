/* tf_f32_conv2d_direct_accumulate: float32 Conv2D accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#define TF_CONV_ACCUMULATE tf_f32_conv2d_direct_accumulate
#include "tinyfit/kernel_templates/conv2d_direct.h"
