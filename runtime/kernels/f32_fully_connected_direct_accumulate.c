/* tf_f32_fully_connected_direct_accumulate: float32 FullyConnected accumulate of a chunk of input channels (tinyfit/conv.h). */
#include "tinyfit/conv.h"

#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#define TF_FC_ACCUMULATE tf_f32_fully_connected_direct_accumulate
#include "tinyfit/kernel_templates/fully_connected_direct.h"
