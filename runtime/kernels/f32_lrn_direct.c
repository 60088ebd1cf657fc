#include <math.h>

#include "tinyfit/normalization.h"

void tf_f32_lrn_direct(const tf_view* input, const tf_view* output, const tf_lrn_params* params) {
  const int32_t channels = input->shape[3];
  const int32_t before = (params->size - 1) / 2;
  const int32_t after = params->size - 1 - before;
  const float alpha_over_size = params->alpha / (float)params->size;
  int32_t n, h, w, c, k;
  for (n = 0; n < input->shape[0]; ++n) {
    for (h = 0; h < input->shape[1]; ++h) {
      for (w = 0; w < input->shape[2]; ++w) {
        const float* x = (const float*)input->data + (size_t)n * (size_t)input->strides[0] +
                         (size_t)h * (size_t)input->strides[1] + (size_t)w * (size_t)input->strides[2];
        float* y = (float*)output->data + (size_t)n * (size_t)output->strides[0] +
                   (size_t)h * (size_t)output->strides[1] + (size_t)w * (size_t)output->strides[2];
        for (c = 0; c < channels; ++c) {
          const int32_t first = c - before < 0 ? 0 : c - before;
          const int32_t last = c + after > channels - 1 ? channels - 1 : c + after;
          float square_sum = 0.0f;
          float v;
          for (k = first; k <= last; ++k) {
            const float xk = x[(size_t)k * (size_t)input->strides[3]];
            square_sum += xk * xk;
          }
          v = x[(size_t)c * (size_t)input->strides[3]] /
              powf(params->bias + alpha_over_size * square_sum, params->beta);
          if (v < params->output_min) v = params->output_min;
          if (v > params->output_max) v = params->output_max;
          y[(size_t)c * (size_t)output->strides[3]] = v;
        }
      }
    }
  }
}
