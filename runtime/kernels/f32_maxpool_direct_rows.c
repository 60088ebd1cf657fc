#include "tinyfit/kernel_templates/pool_arithmetic.h"
#include "tinyfit/pool.h"

#define TF_KERNEL_ROWS tf_f32_maxpool_direct_rows
#define TF_IN_T float
#define TF_OUT_T float
#define TF_PARAMS_T tf_f32_pool_params
#define TF_ACC_T float
#define TF_ACC_INIT -INFINITY
#define TF_ACC_TAP(acc, x) tf_float_max_tap((acc), (x))
#define TF_FINISH(acc, count, p) ((void)(count), tf_clamp_float((acc), (p)->output_min, (p)->output_max))
#include "tinyfit/kernel_templates/pool_window.h"
