#include "tinyfit/kernel_templates/pool_arithmetic.h"
#include "tinyfit/pool.h"

#define TF_ACCUMULATE tf_qu8_avgpool_direct_accumulate
#define TF_IN_T uint8_t
#define TF_ACC_TAP(acc, x) ((acc) + (x))
#include "tinyfit/kernel_templates/pool_accumulate.h"
