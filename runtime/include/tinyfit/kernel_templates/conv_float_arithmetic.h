/* The float32 element arithmetic of the conv-family kernels: float sums,
 * float bias, clamp to [float_min, float_max]; accumulators are float
 * (whatever accumulator_bits says). Same names as conv_quantized_arithmetic.h. */
typedef float conv_element;
typedef float conv_weight;
typedef float conv_sum;
#define CONV_HAS_OFFSETS 0

static inline conv_sum conv_widen_element(conv_element x) { return x; }
static inline conv_sum conv_widen_weight(conv_weight w) { return w; }

static inline conv_sum conv_offset_terms(conv_sum x_sum, conv_sum w_sum, int32_t terms, int32_t x_offset,
                                         int32_t w_offset) {
  (void)x_sum;
  (void)w_sum;
  (void)terms;
  (void)x_offset;
  (void)w_offset;
  return 0.0f;
}

static inline conv_sum conv_product(conv_element x, conv_weight w, int32_t x_offset, int32_t w_offset) {
  (void)x_offset;
  (void)w_offset;
  return x * w;
}

static inline float conv_clamp_float(float x, float lo, float hi) {
  x = x < lo ? lo : x;
  return hi < x ? hi : x;
}

static inline void conv_store_output(void* output, ptrdiff_t index, conv_sum sum, int32_t channel,
                                     const tf_conv_params* p) {
  ((float*)output)[index] = conv_clamp_float(sum + ((const float*)p->bias)[channel], p->float_min, p->float_max);
}

static inline void conv_store_accumulator(void* accumulator, ptrdiff_t index, conv_sum sum, int32_t channel,
                                          const tf_conv_params* p, int32_t bits, int32_t first) {
  float* a = (float*)accumulator + index;
  (void)channel;
  (void)p;
  (void)bits;
  *a = first ? sum : *a + sum;
}

static inline void conv_finalize_element(const void* accumulator, ptrdiff_t a_index, void* output,
                                         ptrdiff_t o_index, int32_t channel, const tf_conv_params* p,
                                         int32_t bits) {
  (void)bits;
  conv_store_output(output, o_index, ((const float*)accumulator)[a_index], channel, p);
}
