#define TF_CONCAT_RESCALE_NAME tf_qu8_concat_rescale
#define TF_CONCAT_RESCALE_ELEMENT uint8_t
#define TF_CONCAT_RESCALE_MIN 0
#define TF_CONCAT_RESCALE_MAX 255
#include "tinyfit/concat_rescale_template.h"
