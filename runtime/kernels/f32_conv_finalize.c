/* tf_f32_conv_finalize: float32 finalize of a Conv2D / FullyConnected accumulate loop (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#define TF_CONV_FINALIZE tf_f32_conv_finalize
#include "tinyfit/kernel_templates/conv_finalize.h"
