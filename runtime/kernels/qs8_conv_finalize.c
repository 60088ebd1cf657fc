/* tf_qs8_conv_finalize: int8 finalize of a Conv2D / FullyConnected accumulate loop (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_CONV_FINALIZE tf_qs8_conv_finalize
#include "tinyfit/kernel_templates/conv_finalize.h"
