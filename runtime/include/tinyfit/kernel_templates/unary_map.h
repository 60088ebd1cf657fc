/* Template of a unary element-wise kernel (same shape in and out). A kernel
 * file (runtime/kernels/<kernel>.c) defines
 *   TF_KERNEL       the function name (declared in tinyfit/elementwise.h)
 *   TF_IN_T         the input element type
 *   TF_OUT_T        the output element type
 *   TF_PARAMS_T     the type `params` points to (a struct, or a table element)
 *   TF_OP(x, p)     the output element for input element x
 * and then includes this file once (no include guard, on purpose). All
 * strides are taken from the views. */

void TF_KERNEL(const tf_view* input, const tf_view* output, const TF_PARAMS_T* params) {
  const TF_IN_T* x_data = (const TF_IN_T*)input->data;
  TF_OUT_T* y_data = (TF_OUT_T*)output->data;
  int32_t n, h, w, c;
  for (n = 0; n < output->shape[0]; ++n) {
    for (h = 0; h < output->shape[1]; ++h) {
      for (w = 0; w < output->shape[2]; ++w) {
        const TF_IN_T* x_row = x_data + (ptrdiff_t)n * input->strides[0] + (ptrdiff_t)h * input->strides[1] +
                               (ptrdiff_t)w * input->strides[2];
        TF_OUT_T* y_row = y_data + (ptrdiff_t)n * output->strides[0] + (ptrdiff_t)h * output->strides[1] +
                          (ptrdiff_t)w * output->strides[2];
        for (c = 0; c < output->shape[3]; ++c) {
          y_row[(ptrdiff_t)c * output->strides[3]] = TF_OP(x_row[(ptrdiff_t)c * input->strides[3]], params);
        }
      }
    }
  }
}
