/* tf_qs8_fully_connected_direct_accumulate: int8 FullyConnected accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#define TF_CONV_ELEMENT int8_t
#include "tinyfit/kernel_templates/conv_quantized_arithmetic.h"
#define TF_FC_ACCUMULATE tf_qs8_fully_connected_direct_accumulate
#include "tinyfit/kernel_templates/fully_connected_direct.h"
