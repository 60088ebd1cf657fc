/* tf_qs8_fully_connected_direct: int8 FullyConnected, whole or a chunk of outputs (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_FC_DIRECT tf_qs8_fully_connected_direct
#include "tinyfit/kernel_templates/fully_connected_direct.h"
