#include "tinyfit/kernel_templates/pool_arithmetic.h"
#include "tinyfit/pool.h"

#define TF_KERNEL_ROWS tf_f32_avgpool_direct_rows
#define TF_IN_T float
#define TF_OUT_T float
#define TF_PARAMS_T tf_f32_pool_params
#define TF_ACC_T double
#define TF_ACC_INIT 0.0
#define TF_ACC_TAP(acc, x) ((acc) + (x))
#define TF_FINISH(acc, count, p) tf_f32_average_finish((acc), (count), (p))
#include "tinyfit/kernel_templates/pool_window.h"
