#define TF_SOFTMAX_NAME tf_qs8_softmax_lut
#define TF_SOFTMAX_ELEMENT int8_t
#define TF_SOFTMAX_MIN (-128)
#define TF_SOFTMAX_MAX 127
#include "tinyfit/softmax_lut_template.h"
