/* tf_f32_conv2d_im2col_rows: float32 Conv2D, a range of output rows, partial im2col + GEMM (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_F32_CONV_IM2COL_ROWS tf_f32_conv2d_im2col_rows
#include "tinyfit/kernel_templates/conv2d_im2col_float.h"
