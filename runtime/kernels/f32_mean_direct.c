#include "tinyfit/kernel_templates/mean_arithmetic.h"
#include "tinyfit/pool.h"

#define TF_KERNEL tf_f32_mean_direct
#define TF_IN_T float
#define TF_OUT_T float
#define TF_PARAMS_T tf_f32_mean_params
#define TF_ACC_T double
#define TF_FINISH(sum, p) tf_f32_mean_finish((sum), (p))
#include "tinyfit/kernel_templates/mean_reduce.h"
