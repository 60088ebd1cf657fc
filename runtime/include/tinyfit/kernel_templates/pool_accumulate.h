/* Template of a global pool run by bands of rows (tinyfit/pool.h,
 * *_accumulate and *_finalize). A kernel file defines
 *   TF_ACCUMULATE or TF_FINALIZE  the function name
 *   TF_IN_T                       the input element type (accumulate)
 *   TF_OUT_T                      the output element type (finalize)
 *   TF_ACC_TAP(acc, x)            the accumulator after one more tap x
 *   TF_FINISH(acc, count, p)      the output element from the accumulator
 * and then includes this file once (no include guard, on purpose).
 * Accumulators are int32, one per channel: the first tap of the tensor
 * (row 0, col 0) sets them, later taps fold in, rows outer and cols inner as
 * the whole kernel visits them. */

#ifdef TF_ACCUMULATE
void TF_ACCUMULATE(const tf_view* input, const tf_view* accumulator, const tf_quantized_pool_params* params) {
  const TF_IN_T* x_data = (const TF_IN_T*)input->data;
  int32_t* acc = (int32_t*)accumulator->data;
  const int32_t rows = input->shape[1], cols = input->shape[2], channels = input->shape[3];
  const int32_t acc_stride = accumulator->strides[3];
  int32_t y, x, c;
  (void)params;
  if (rows <= 0 || cols <= 0) return;
  for (y = 0; y < rows; ++y) {
    for (x = 0; x < cols; ++x) {
      const TF_IN_T* pixel = x_data + (ptrdiff_t)y * input->strides[1] + (ptrdiff_t)x * input->strides[2];
      const int32_t* end = acc + (ptrdiff_t)channels * acc_stride;
      int32_t* a = acc;
      if (input->origin[1] + y == 0 && x == 0) {
        for (c = 0; a != end; ++c, a += acc_stride) *a = (int32_t)pixel[(ptrdiff_t)c * input->strides[3]];
        continue;
      }
      for (c = 0; a != end; ++c, a += acc_stride) {
        *a = TF_ACC_TAP(*a, (int32_t)pixel[(ptrdiff_t)c * input->strides[3]]);
      }
    }
  }
}
#endif

#ifdef TF_FINALIZE
void TF_FINALIZE(const tf_view* accumulator, const tf_view* output, const tf_quantized_pool_params* params) {
  const int32_t* acc = (const int32_t*)accumulator->data;
  TF_OUT_T* y_data = (TF_OUT_T*)output->data;
  const int32_t count = params->kernel_h * params->kernel_w;
  int32_t c;
  for (c = 0; c < output->shape[3]; ++c) {
    y_data[(ptrdiff_t)c * output->strides[3]] = TF_FINISH(acc[(ptrdiff_t)c * accumulator->strides[3]], count, params);
  }
}
#endif
