#include "tinyfit/kernel_templates/pool_arithmetic.h"
#include "tinyfit/pool.h"

#define TF_KERNEL_ROWS tf_qs8_avgpool_direct_rows
#define TF_IN_T int8_t
#define TF_OUT_T int8_t
#define TF_PARAMS_T tf_quantized_pool_params
#define TF_ACC_T int32_t
#define TF_ACC_INIT 0
#define TF_ACC_TAP(acc, x) ((acc) + (x))
#define TF_FINISH(acc, count, p) ((int8_t)tf_quantized_average_finish((acc), (count), (p)))
#include "tinyfit/kernel_templates/pool_window.h"
