/* tf_qs8_conv_finalize: int8 finalize of a Conv2D / FullyConnected accumulate loop (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "conv_quantized.inc"
#define TF_CONV_FINALIZE tf_qs8_conv_finalize
#include "conv_finalize.inc"
