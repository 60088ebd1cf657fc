#include "tinyfit/elementwise.h"
#include "tinyfit/kernel_templates/quantized_arithmetic.h"

#define TF_KERNEL tf_qs8_quantize_direct
#define TF_IN_T float
#define TF_OUT_T int8_t
#define TF_PARAMS_T tf_quantize_params
#define TF_OP(x, p) ((int8_t)tf_quantize_float((x), (p), INT8_MIN, INT8_MAX))
#include "tinyfit/kernel_templates/unary_map.h"
