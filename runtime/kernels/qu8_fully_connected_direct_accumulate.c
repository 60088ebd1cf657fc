/* tf_qu8_fully_connected_direct_accumulate: uint8 (legacy, per-tensor weight zero point) FullyConnected accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT uint8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_FC_ACCUMULATE tf_qu8_fully_connected_direct_accumulate
#include "tinyfit/kernel_templates/fully_connected_direct.h"
