#include "tinyfit/kernel_templates/pool_arithmetic.h"
#include "tinyfit/pool.h"

#define TF_FINALIZE tf_qu8_maxpool_finalize
#define TF_OUT_T uint8_t
#define TF_FINISH(acc, count, p) ((uint8_t)tf_quantized_max_finish((acc), (count), (p)))
#include "tinyfit/kernel_templates/pool_accumulate.h"
