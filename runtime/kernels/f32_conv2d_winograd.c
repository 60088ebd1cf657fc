/* tf_f32_conv2d_winograd: float32 Conv2D 3x3 stride 1, whole or a chunk of output channels, Winograd F(2x2, 3x3) (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_F32_CONV_WINOGRAD tf_f32_conv2d_winograd
#include "tinyfit/kernel_templates/conv2d_winograd_float.h"
