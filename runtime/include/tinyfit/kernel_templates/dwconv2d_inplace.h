/* The in-place driver of a DepthwiseConv2D written over its own input, for
 * any row kernel: the including template defines TF_DWCONV_INPLACE (the
 * function), DWCONV_INPLACE_ROWS (its row function, with dwconv_rows'
 * arguments: out_begin, out_end, in_begin, out_row, in_row, out_col, in_col)
 * and the type dwconv_inplace_element. */
#include <stddef.h>

/* Row-wise in place (analysis/inplace.h, compute_line_buffer_rows): rows are
 * computed in order into a ring of `line_rows` rows in the workspace, and row
 * r is copied to its place once no row still to compute reads the input rows
 * its bytes cover: after row min(Ho - 1, floor((hi(r) + pad_top) / stride_h)),
 * hi(r) = floor(((r + 1) * Wo - 1) / Wi). Batch 1, multiplier 1. */
void TF_DWCONV_INPLACE(const tf_view* input, const tf_view* output, const tf_conv_params* params, uint8_t* workspace,
                       int32_t line_rows) {
  const int32_t out_rows = output->shape[1], out_cols = output->shape[2], channels = output->shape[3];
  dwconv_inplace_element* ring = (dwconv_inplace_element*)(void*)workspace;
  const ptrdiff_t ring_row = (ptrdiff_t)out_cols * channels;
  int32_t row, pending = 0, col, c;
  for (row = 0; row < out_rows; ++row) {
    tf_view line;
    line.data = ring + (row % line_rows) * ring_row;
    line.shape[0] = 1;
    line.shape[1] = 1;
    line.shape[2] = out_cols;
    line.shape[3] = channels;
    line.strides[3] = 1;
    line.strides[2] = channels;
    line.strides[1] = line.strides[0] = (int32_t)ring_row;
    DWCONV_INPLACE_ROWS(input, &line, params, 0, channels, 0, row, 0, 0, 0);
    while (pending <= row) {
      const int32_t covered = (int32_t)((((int64_t)pending + 1) * out_cols - 1) / input->shape[2]);
      int32_t release = (covered + params->pad_top) / params->stride_h;
      if (release > out_rows - 1) release = out_rows - 1;
      if (release > row) break;
      for (col = 0; col < out_cols; ++col) {
        const dwconv_inplace_element* from = ring + (pending % line_rows) * ring_row + (ptrdiff_t)col * channels;
        dwconv_inplace_element* to = (dwconv_inplace_element*)output->data + (ptrdiff_t)pending * output->strides[1] +
                                     (ptrdiff_t)col * output->strides[2];
        for (c = 0; c < channels; ++c) to[c] = from[c];
      }
      ++pending;
    }
  }
}
