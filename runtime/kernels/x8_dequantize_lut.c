#include "tinyfit/elementwise.h"

#define TF_KERNEL tf_x8_dequantize_lut
#define TF_IN_T uint8_t
#define TF_OUT_T float
#define TF_PARAMS_T float
#define TF_OP(x, p) ((p)[(x)])
#include "tinyfit/kernel_templates/unary_map.h"
