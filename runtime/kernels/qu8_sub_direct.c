/* tf_qu8_sub_direct: TFLite's quantized Sub with broadcasting (tinyfit/elementwise.h); contiguous runs in
 * the fast form of kernel_templates/quantized_add.h. */
#define TF_KERNEL tf_qu8_sub_direct
#define TF_T uint8_t
#define TF_ADD_UNSIGNED 1
#define TF_ADD_SUBTRACT 1
#include "tinyfit/kernel_templates/quantized_add.h"
