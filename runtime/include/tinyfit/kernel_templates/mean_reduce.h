/* Template of a Mean kernel: for every output element, the sum over the
 * reduced axes in row-major order (the reference's order, so float sums
 * agree), then finished. A kernel file defines
 *   TF_KERNEL                 the function name (declared in tinyfit/pool.h)
 *   TF_IN_T, TF_OUT_T         element types
 *   TF_PARAMS_T               the parameter struct (reduce_mask, keep_dims first)
 *   TF_ACC_T                  the sum's type (int32_t of raw values, or double)
 *   TF_FINISH(sum, p)         the output element
 * and then includes this file once (no include guard, on purpose). */

void TF_KERNEL(const tf_view* input, const tf_view* output, const TF_PARAMS_T* params) {
  const TF_IN_T* x_data = (const TF_IN_T*)input->data;
  TF_OUT_T* y_data = (TF_OUT_T*)output->data;
  int32_t outer[4], inner[4], out_strides[4];
  int32_t d, k = 3, o0, o1, o2, o3, i0, i1, i2, i3;
  /* Kept axes map to the output's same axis (keep_dims) or to its axes from
   * the right, in order; reduced axes do not move the output. */
  for (d = 3; d >= 0; --d) {
    const int reduced = (params->reduce_mask >> d) & 1;
    outer[d] = reduced ? 1 : input->shape[d];
    inner[d] = reduced ? input->shape[d] : 1;
    out_strides[d] = reduced ? 0 : output->strides[params->keep_dims ? d : k--];
  }
  for (o0 = 0; o0 < outer[0]; ++o0)
    for (o1 = 0; o1 < outer[1]; ++o1)
      for (o2 = 0; o2 < outer[2]; ++o2)
        for (o3 = 0; o3 < outer[3]; ++o3) {
          const TF_IN_T* x = x_data + (ptrdiff_t)o0 * input->strides[0] + (ptrdiff_t)o1 * input->strides[1] +
                             (ptrdiff_t)o2 * input->strides[2] + (ptrdiff_t)o3 * input->strides[3];
          TF_ACC_T sum = 0;
          for (i0 = 0; i0 < inner[0]; ++i0)
            for (i1 = 0; i1 < inner[1]; ++i1)
              for (i2 = 0; i2 < inner[2]; ++i2)
                for (i3 = 0; i3 < inner[3]; ++i3) {
                  sum += x[(ptrdiff_t)i0 * input->strides[0] + (ptrdiff_t)i1 * input->strides[1] +
                           (ptrdiff_t)i2 * input->strides[2] + (ptrdiff_t)i3 * input->strides[3]];
                }
          y_data[(ptrdiff_t)o0 * out_strides[0] + (ptrdiff_t)o1 * out_strides[1] + (ptrdiff_t)o2 * out_strides[2] +
                 (ptrdiff_t)o3 * out_strides[3]] = TF_FINISH(sum, params);
        }
}
