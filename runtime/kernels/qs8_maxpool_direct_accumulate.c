#include "tinyfit/kernel_templates/pool_arithmetic.h"
#include "tinyfit/pool.h"

#define TF_ACCUMULATE tf_qs8_maxpool_direct_accumulate
#define TF_IN_T int8_t
#define TF_ACC_TAP(acc, x) ((acc) < (x) ? (x) : (acc))
#include "tinyfit/kernel_templates/pool_accumulate.h"
