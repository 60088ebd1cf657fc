/* tf_f32_fully_connected_direct: float32 FullyConnected, whole or a chunk of outputs (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "conv_float.inc"
#define TF_FC_DIRECT tf_f32_fully_connected_direct
#include "fully_connected_direct.inc"
