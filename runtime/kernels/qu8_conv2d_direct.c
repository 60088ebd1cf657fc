/* tf_qu8_conv2d_direct: uint8 (legacy, per-tensor weight zero point) Conv2D, whole or a chunk of output channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT uint8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_CONV_DIRECT tf_qu8_conv2d_direct
#include "tinyfit/kernel_templates/conv2d_direct.h"
