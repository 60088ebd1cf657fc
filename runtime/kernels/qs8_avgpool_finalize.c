#include "tinyfit/kernel_templates/pool_arithmetic.h"
#include "tinyfit/pool.h"

#define TF_FINALIZE tf_qs8_avgpool_finalize
#define TF_OUT_T int8_t
#define TF_FINISH(acc, count, p) ((int8_t)tf_quantized_average_finish((acc), (count), (p)))
#include "tinyfit/kernel_templates/pool_accumulate.h"
