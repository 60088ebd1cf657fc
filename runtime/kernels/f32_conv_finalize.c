/* tf_f32_conv_finalize: float32 finalize of a Conv2D / FullyConnected accumulate loop (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "conv_float.inc"
#define TF_CONV_FINALIZE tf_f32_conv_finalize
#include "conv_finalize.inc"
