/* tf_qs8_fully_connected_direct: int8 FullyConnected, whole or a chunk of outputs (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "conv_quantized.inc"
#define TF_FC_DIRECT tf_qs8_fully_connected_direct
#include "fully_connected_direct.inc"
