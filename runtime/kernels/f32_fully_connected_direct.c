/* tf_f32_fully_connected_direct: float32 FullyConnected, whole or a chunk of outputs (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#define TF_FC_DIRECT tf_f32_fully_connected_direct
#include "tinyfit/kernel_templates/fully_connected_direct.h"
