#define TF_CONCAT_RESCALE_NAME tf_qs8_concat_rescale
#define TF_CONCAT_RESCALE_ELEMENT int8_t
#define TF_CONCAT_RESCALE_MIN (-128)
#define TF_CONCAT_RESCALE_MAX 127
#include "tinyfit/concat_rescale_template.h"
