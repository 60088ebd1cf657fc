/* tf_qu8_fully_connected_direct_accumulate: uint8 (legacy, per-tensor weight zero point) FullyConnected accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT uint8_t
#include "conv_quantized.inc"
#define TF_FC_ACCUMULATE tf_qu8_fully_connected_direct_accumulate
#include "fully_connected_direct.inc"
