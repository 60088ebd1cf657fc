#include "tinyfit/elementwise.h"
#include "tinyfit/kernel_templates/quantized_arithmetic.h"

#define TF_KERNEL tf_qs8_mul_direct
#define TF_T int8_t
#define TF_PARAMS_T tf_quantized_mul_params
#define TF_OP(u, v, p) ((int8_t)tf_quantized_mul((u), (v), (p)))
#include "tinyfit/kernel_templates/binary_broadcast.h"
