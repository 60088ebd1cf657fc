#define TF_SOFTMAX_NAME tf_qu8_softmax_lut
#define TF_SOFTMAX_ELEMENT uint8_t
#define TF_SOFTMAX_MIN 0
#define TF_SOFTMAX_MAX 255
#include "tinyfit/softmax_lut_template.h"
