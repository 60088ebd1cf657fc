/* tf_f32_fully_connected_direct_accumulate: float32 FullyConnected accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "conv_float.inc"
#define TF_FC_ACCUMULATE tf_f32_fully_connected_direct_accumulate
#include "fully_connected_direct.inc"
