/* Float32 Conv2D 3x3, stride 1, dilation 1, groups 1, by Winograd's minimal
 * filtering F(2x2, 3x3) (Lavin and Gray, "Fast Algorithms for Convolutional
 * Neural Networks", 2016). The including file defines TF_F32_CONV_WINOGRAD
 * or TF_F32_CONV_WINOGRAD_ROWS.
 *
 * Each 2x2 output tile comes from the 4x4 input tile d_c of every input
 * channel c:
 *   Y_k = A^T [ sum_c U_kc (.) V_c ] A,  U_kc = G g_kc G^T,  V_c = B^T d_c B
 * (elementwise product (.)), 16 multiplies per tile and channel pair instead
 * of the direct loops' 36. The compiler transforms the weights
 * (exec/bind_conv_params.cc) and lays U out as
 * [ceil(Cout/4)][4 tile rows][Cin][4 tile cols][4 output channels]
 * (zero weights pad the last block of channels). The workspace holds V_c of
 * one tile for every input channel, [Cin][16] floats
 * (tf_f32_conv2d_winograd_workspace_bytes). Per block of four output
 * channels and tile row, each input channel costs four V loads and sixteen U
 * loads for sixteen multiply-adds, the sums in the FPU's registers.
 *
 * Results differ from the direct loops' by rounding only (the transforms'
 * sums and the factors 1/2 in G are exact or nearly so in float). */
#include "tinyfit/dsp.h"
#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#include "tinyfit/kernel_templates/conv_taps.h"

/* V = B^T d B for one channel, d row-major 4x4, B^T = [1 0 -1 0; 0 1 1 0;
 * 0 -1 1 0; 0 1 0 -1]. */
static inline void f32_winograd_transform_input(const float d[16], float v[16]) {
  float t[16];
  int32_t j;
  for (j = 0; j < 4; ++j) {
    t[0 + j] = d[0 + j] - d[8 + j];
    t[4 + j] = d[4 + j] + d[8 + j];
    t[8 + j] = d[8 + j] - d[4 + j];
    t[12 + j] = d[4 + j] - d[12 + j];
  }
  for (j = 0; j < 16; j += 4) {
    v[j + 0] = t[j + 0] - t[j + 2];
    v[j + 1] = t[j + 1] + t[j + 2];
    v[j + 2] = t[j + 2] - t[j + 1];
    v[j + 3] = t[j + 1] - t[j + 3];
  }
}

/* The input tiles of one output tile, transformed, for every input channel:
 * rows iy0 .. iy0 + 3 and cols ix0 .. ix0 + 3 of image n (zero outside). */
static void f32_winograd_gather(const tf_view* input, int32_t n, int32_t iy0, int32_t ix0, float* v) {
  const int32_t channels = input->shape[3];
  const ptrdiff_t col_stride = input->strides[2];
  const float* base = (const float*)input->data + (ptrdiff_t)n * input->strides[0];
  int32_t ky_begin, ky_end, kx_begin, kx_end, c, i, j;
  float d[16];
  conv_tap_range(iy0, 1, 4, input->shape[1], &ky_begin, &ky_end);
  conv_tap_range(ix0, 1, 4, input->shape[2], &kx_begin, &kx_end);
  if (ky_begin == 0 && ky_end == 4 && kx_begin == 0 && kx_end == 4) {
    const float* r0 = base + (ptrdiff_t)iy0 * input->strides[1] + (ptrdiff_t)ix0 * col_stride;
    const float* r1 = r0 + input->strides[1];
    const float* r2 = r1 + input->strides[1];
    const float* r3 = r2 + input->strides[1];
    for (c = 0; c < channels; ++c, v += 16) {
      for (j = 0; j < 4; ++j) {
        d[0 + j] = r0[j * col_stride + c];
        d[4 + j] = r1[j * col_stride + c];
        d[8 + j] = r2[j * col_stride + c];
        d[12 + j] = r3[j * col_stride + c];
      }
      f32_winograd_transform_input(d, v);
    }
    return;
  }
  for (i = 0; i < 16; ++i) d[i] = 0.0f;
  for (c = 0; c < channels; ++c, v += 16) {
    for (i = ky_begin; i < ky_end; ++i) {
      const float* row = base + (ptrdiff_t)(iy0 + i) * input->strides[1] + (ptrdiff_t)ix0 * col_stride + c;
      for (j = kx_begin; j < kx_end; ++j) d[4 * i + j] = row[j * col_stride];
    }
    f32_winograd_transform_input(d, v);
  }
}

/* m[q * 4 + j] += sum over the channels of v[c][4 * row + q] * u[c][q][j]:
 * one tile row of four positions for four output channels. */
TF_INNER_LOOP static void f32_winograd_multiply_row(const float* v, const float* u, int32_t channels, float m[16]) {
  float a00 = 0.0f, a01 = 0.0f, a02 = 0.0f, a03 = 0.0f, a10 = 0.0f, a11 = 0.0f, a12 = 0.0f, a13 = 0.0f;
  float a20 = 0.0f, a21 = 0.0f, a22 = 0.0f, a23 = 0.0f, a30 = 0.0f, a31 = 0.0f, a32 = 0.0f, a33 = 0.0f;
  const float* const u_end = u + (ptrdiff_t)channels * 16;
  for (; u < u_end; u += 16, v += 16) {
    const float x0 = v[0], x1 = v[1], x2 = v[2], x3 = v[3];
    a00 += x0 * u[0], a01 += x0 * u[1], a02 += x0 * u[2], a03 += x0 * u[3];
    a10 += x1 * u[4], a11 += x1 * u[5], a12 += x1 * u[6], a13 += x1 * u[7];
    a20 += x2 * u[8], a21 += x2 * u[9], a22 += x2 * u[10], a23 += x2 * u[11];
    a30 += x3 * u[12], a31 += x3 * u[13], a32 += x3 * u[14], a33 += x3 * u[15];
  }
  m[0] = a00, m[1] = a01, m[2] = a02, m[3] = a03, m[4] = a10, m[5] = a11, m[6] = a12, m[7] = a13;
  m[8] = a20, m[9] = a21, m[10] = a22, m[11] = a23, m[12] = a30, m[13] = a31, m[14] = a32, m[15] = a33;
}

/* The output view's tiles (its (0, 0) the node's (out_row, out_col); the
 * input view's (0, 0) the node's input (in_row, in_col)), channels
 * [out_begin, out_end) written at channel c - out_begin. */
static void f32_winograd_run(const tf_view* input, const tf_view* output, const tf_conv_params* p, uint8_t* workspace,
                             int32_t out_begin, int32_t out_end, int32_t out_row, int32_t in_row, int32_t out_col,
                             int32_t in_col) {
  const int32_t in_channels = p->in_channels;
  const int32_t pad_top = p->pad_top - out_row + in_row;
  const int32_t pad_left = p->pad_left - out_col + in_col;
  const float* weights = (const float*)p->weights;
  const int32_t rows = output->shape[1], cols = output->shape[2];
  float* v = (float*)(void*)workspace;
  int32_t n, ty, tx;
  for (n = 0; n < output->shape[0]; ++n) {
    for (ty = 0; ty < rows; ty += 2) {
      for (tx = 0; tx < cols; tx += 2) {
        const int32_t tile_rows = rows - ty < 2 ? rows - ty : 2;
        const int32_t tile_cols = cols - tx < 2 ? cols - tx : 2;
        float* y = (float*)output->data + (ptrdiff_t)n * output->strides[0] + (ptrdiff_t)ty * output->strides[1] +
                   (ptrdiff_t)tx * output->strides[2] - out_begin;
        int32_t block;
        f32_winograd_gather(input, n, ty - pad_top, tx - pad_left, v);
        for (block = out_begin / 4; block * 4 < out_end; ++block) {
          const float* u = weights + (ptrdiff_t)block * 4 * 16 * in_channels;
          float m[4][16];
          int32_t row, j;
          for (row = 0; row < 4; ++row) {
            f32_winograd_multiply_row(v + 4 * row, u + (ptrdiff_t)row * 16 * in_channels, in_channels, m[row]);
          }
          for (j = 0; j < 4; ++j) {
            const int32_t c = block * 4 + j;
            float s[2][4], out[2][2];
            int32_t q, r, k;
            if (c < out_begin || c >= out_end) continue;
            /* Y = A^T M A, A^T = [1 1 1 0; 0 1 -1 -1]; M[row][col] = m[row][col * 4 + j]. */
            for (q = 0; q < 4; ++q) {
              s[0][q] = m[0][q * 4 + j] + m[1][q * 4 + j] + m[2][q * 4 + j];
              s[1][q] = m[1][q * 4 + j] - m[2][q * 4 + j] - m[3][q * 4 + j];
            }
            for (r = 0; r < 2; ++r) {
              out[r][0] = s[r][0] + s[r][1] + s[r][2];
              out[r][1] = s[r][1] - s[r][2] - s[r][3];
            }
            for (r = 0; r < tile_rows; ++r) {
              for (k = 0; k < tile_cols; ++k) {
                conv_store_output(y, (ptrdiff_t)r * output->strides[1] + (ptrdiff_t)k * output->strides[2] + c,
                                  out[r][k], c, p);
              }
            }
          }
        }
      }
    }
  }
}

#ifdef TF_F32_CONV_WINOGRAD
void TF_F32_CONV_WINOGRAD(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                          uint8_t* workspace, int32_t out_begin, int32_t out_end) {
  f32_winograd_run(input, output, params, workspace, out_begin, out_end, 0, 0, 0, 0);
}
#endif

#ifdef TF_F32_CONV_WINOGRAD_ROWS
/* The part of the output its view shows (rows, cols and channels from its
 * origin) from the input rows and cols the input view shows (all channels),
 * as conv2d_direct_rows. */
void TF_F32_CONV_WINOGRAD_ROWS(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                               uint8_t* workspace) {
  f32_winograd_run(input, output, params, workspace, output->origin[3], output->origin[3] + output->shape[3],
                   output->origin[1], input->origin[1], output->origin[2], input->origin[2]);
}
#endif
