/* tf_f32_conv2d_im2col: float32 Conv2D, whole or a chunk of output channels, partial im2col + GEMM (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_F32_CONV_IM2COL tf_f32_conv2d_im2col
#include "tinyfit/kernel_templates/conv2d_im2col_float.h"
