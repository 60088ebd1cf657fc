/* The body of tf_qs8_concat_rescale and tf_qu8_concat_rescale, written once:
 * a kernel file defines TF_CONCAT_RESCALE_NAME (the function),
 * TF_CONCAT_RESCALE_ELEMENT (int8_t or uint8_t) and TF_CONCAT_RESCALE_MIN /
 * _MAX (the element's range), then includes this header. A header rather than
 * a .inc so that generated code ships it with the other runtime headers. */
#include <math.h>

#include "tinyfit/data_movement.h"

void TF_CONCAT_RESCALE_NAME(const tf_view* input, const tf_view* output, const tf_concat_rescale_params* params) {
  const TF_CONCAT_RESCALE_ELEMENT* in = (const TF_CONCAT_RESCALE_ELEMENT*)input->data;
  TF_CONCAT_RESCALE_ELEMENT* out = (TF_CONCAT_RESCALE_ELEMENT*)output->data +
                                   (size_t)params->offset * (size_t)output->strides[params->axis];
  int32_t n, h, w, c;
  for (n = 0; n < input->shape[0]; ++n) {
    for (h = 0; h < input->shape[1]; ++h) {
      for (w = 0; w < input->shape[2]; ++w) {
        const TF_CONCAT_RESCALE_ELEMENT* src =
            in + (size_t)n * (size_t)input->strides[0] + (size_t)h * (size_t)input->strides[1] +
            (size_t)w * (size_t)input->strides[2];
        TF_CONCAT_RESCALE_ELEMENT* dst = out + (size_t)n * (size_t)output->strides[0] +
                                         (size_t)h * (size_t)output->strides[1] +
                                         (size_t)w * (size_t)output->strides[2];
        for (c = 0; c < input->shape[3]; ++c) {
          /* TfLiteRound: half away from zero, saturated to int32 (NaN to the
           * minimum) like the reference's round_to_int32. */
          const float r = roundf((float)src[(size_t)c * (size_t)input->strides[3]] * params->scale + params->bias);
          int64_t q = !(r >= -2147483648.0f) ? INT32_MIN : r >= 2147483648.0f ? INT32_MAX : (int64_t)r;
          q += params->output_zero_point;
          if (q < TF_CONCAT_RESCALE_MIN) q = TF_CONCAT_RESCALE_MIN;
          if (q > TF_CONCAT_RESCALE_MAX) q = TF_CONCAT_RESCALE_MAX;
          dst[(size_t)c * (size_t)output->strides[3]] = (TF_CONCAT_RESCALE_ELEMENT)q;
        }
      }
    }
  }
}
