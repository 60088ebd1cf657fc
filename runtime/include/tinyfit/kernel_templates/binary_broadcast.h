/* Template of a binary element-wise kernel with numpy broadcasting: one loop
 * for every dtype and op. A kernel file (runtime/kernels/<kernel>.c) defines
 *   TF_KERNEL       the function name (declared in tinyfit/elementwise.h)
 *   TF_T            the element type of a, b and the output
 *   TF_PARAMS_T     the parameter struct type
 *   TF_OP(u, v, p)  the output element for input elements u and v
 * and then includes this file once (no include guard, on purpose).
 * An input axis of extent 1 repeats (stride 0); all other strides are taken
 * from the views, so chunks and slices of larger tensors work unchanged. */

void TF_KERNEL(const tf_view* a, const tf_view* b, const tf_view* output, const TF_PARAMS_T* params) {
  const TF_T* a_data = (const TF_T*)a->data;
  const TF_T* b_data = (const TF_T*)b->data;
  TF_T* y_data = (TF_T*)output->data;
  int32_t a_strides[4], b_strides[4];
  int32_t d, n, h, w, c;
  for (d = 0; d < 4; ++d) {
    a_strides[d] = a->shape[d] == 1 ? 0 : a->strides[d];
    b_strides[d] = b->shape[d] == 1 ? 0 : b->strides[d];
  }
  for (n = 0; n < output->shape[0]; ++n) {
    for (h = 0; h < output->shape[1]; ++h) {
      for (w = 0; w < output->shape[2]; ++w) {
        const TF_T* a_row = a_data + (ptrdiff_t)n * a_strides[0] + (ptrdiff_t)h * a_strides[1] +
                            (ptrdiff_t)w * a_strides[2];
        const TF_T* b_row = b_data + (ptrdiff_t)n * b_strides[0] + (ptrdiff_t)h * b_strides[1] +
                            (ptrdiff_t)w * b_strides[2];
        TF_T* y_row = y_data + (ptrdiff_t)n * output->strides[0] + (ptrdiff_t)h * output->strides[1] +
                      (ptrdiff_t)w * output->strides[2];
        for (c = 0; c < output->shape[3]; ++c) {
          y_row[(ptrdiff_t)c * output->strides[3]] =
              TF_OP(a_row[(ptrdiff_t)c * a_strides[3]], b_row[(ptrdiff_t)c * b_strides[3]], params);
        }
      }
    }
  }
}
