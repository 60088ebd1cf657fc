/* tf_qs8_fully_connected_direct_accumulate: int8 FullyConnected accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "conv_quantized.inc"
#define TF_FC_ACCUMULATE tf_qs8_fully_connected_direct_accumulate
#include "fully_connected_direct.inc"
