/* tf_f32_conv2d_winograd_rows: float32 Conv2D 3x3 stride 1, a range of output rows, Winograd F(2x2, 3x3) (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_F32_CONV_WINOGRAD_ROWS tf_f32_conv2d_winograd_rows
#include "tinyfit/kernel_templates/conv2d_winograd_float.h"
