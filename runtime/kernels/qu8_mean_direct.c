#include "tinyfit/kernel_templates/mean_arithmetic.h"
#include "tinyfit/pool.h"

#define TF_KERNEL tf_qu8_mean_direct
#define TF_IN_T uint8_t
#define TF_OUT_T uint8_t
#define TF_PARAMS_T tf_quantized_mean_params
#define TF_ACC_T int32_t
#define TF_FINISH(sum, p) ((uint8_t)tf_quantized_mean_finish((sum), (p)))
#include "tinyfit/kernel_templates/mean_reduce.h"
