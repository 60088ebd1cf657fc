/* tf_f32_conv2d_direct: float32 Conv2D, whole or a chunk of output channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#define TF_CONV_DIRECT tf_f32_conv2d_direct
#include "tinyfit/kernel_templates/conv2d_direct.h"
