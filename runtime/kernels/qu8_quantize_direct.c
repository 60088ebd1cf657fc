#include "tinyfit/elementwise.h"
#include "tinyfit/kernel_templates/quantized_arithmetic.h"

#define TF_KERNEL tf_qu8_quantize_direct
#define TF_IN_T float
#define TF_OUT_T uint8_t
#define TF_PARAMS_T tf_quantize_params
#define TF_OP(x, p) ((uint8_t)tf_quantize_float((x), (p), 0, UINT8_MAX))
#include "tinyfit/kernel_templates/unary_map.h"
