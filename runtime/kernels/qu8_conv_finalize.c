/* tf_qu8_conv_finalize: uint8 (legacy, per-tensor weight zero point) finalize of a Conv2D / FullyConnected accumulate loop (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT uint8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_CONV_FINALIZE tf_qu8_conv_finalize
#include "tinyfit/kernel_templates/conv_finalize.h"
