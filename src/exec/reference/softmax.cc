// Softmax along one axis. Quantized: TFLite reference_ops::Softmax for int8 /
// uint8 (softmax.h): differences to the row maximum scaled by beta*in_scale
// into Q5.26, gemmlowp exp_on_negative_values, a Q12.19 sum, GetReciprocal,
// output on scale 1/256 at the dtype's minimum.
#include <algorithm>
#include <cmath>

#include "exec/reference/fixed_point.h"
#include "exec/reference/kernel.h"
#include "exec/reference/softmax_exp.h"

namespace tinyfit::exec::reference {
namespace {

struct SoftmaxLayout {
  int64_t outer, depth, inner;  // element (o, d, i) is at (o*depth + d)*inner + i
};

SoftmaxLayout describe(const ir::Shape& shape, int axis) {
  SoftmaxLayout l{1, shape[static_cast<size_t>(axis)], 1};
  for (int d = 0; d < axis; ++d) l.outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) l.inner *= shape[d];
  return l;
}

}  // namespace

// TFLite PreprocessSoftmaxScaling + CalculateInputRadius (softmax_common.cc).
SoftmaxExpParams prepare_softmax_exp(double beta, double input_scale) {
  SoftmaxExpParams p;
  const double max_real_multiplier = static_cast<double>((1ll << 31) - 1);
  const double real_multiplier = std::min<double>(
      beta * input_scale * static_cast<double>(1 << (31 - kSoftmaxScaledDiffIntegerBits)), max_real_multiplier);
  const QuantizedMultiplier m = quantize_multiplier(real_multiplier);
  p.input_multiplier = m.multiplier;
  p.input_left_shift = m.shift;
  const double max_input_rescaled = 1.0 * ((1 << kSoftmaxScaledDiffIntegerBits) - 1) *
                                    static_cast<double>(1ll << (31 - kSoftmaxScaledDiffIntegerBits)) /
                                    static_cast<double>(1ll << p.input_left_shift);
  p.diff_min = -static_cast<int32_t>(std::floor(max_input_rescaled));
  return p;
}

int32_t compute_softmax_exp(const SoftmaxExpParams& params, int32_t diff) {
  const int32_t rescaled = saturating_rounding_doubling_high_mul(
      static_cast<int32_t>(static_cast<uint32_t>(diff) << params.input_left_shift), params.input_multiplier);
  return compute_exp_on_negative_values(rescaled, kSoftmaxScaledDiffIntegerBits);
}

Status run_softmax(const KernelArgs& args) {
  const auto& a = args.node.attr<ir::SoftmaxAttrs>();
  const SoftmaxLayout l = describe(args.input_tensor(0).shape, a.axis);
  const auto at = [&](int64_t o, int64_t d, int64_t i) { return static_cast<size_t>((o * l.depth + d) * l.inner + i); };
  const ir::DType dtype = args.output_tensor(0).dtype;

  if (dtype == ir::DType::kF32) {
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> x, load_reals(args, *args.inputs[0], args.input_tensor(0)));
    std::vector<float> y(x.size());
    for (int64_t o = 0; o < l.outer; ++o)
      for (int64_t i = 0; i < l.inner; ++i) {
        float max = x[at(o, 0, i)];
        for (int64_t d = 1; d < l.depth; ++d) max = std::max(max, x[at(o, d, i)]);
        double sum = 0;
        for (int64_t d = 0; d < l.depth; ++d) sum += std::exp(static_cast<double>(a.beta) * (x[at(o, d, i)] - max));
        for (int64_t d = 0; d < l.depth; ++d) {
          y[at(o, d, i)] = static_cast<float>(std::exp(static_cast<double>(a.beta) * (x[at(o, d, i)] - max)) / sum);
        }
      }
    store_floats(*args.outputs[0], y);
    return {};
  }
  if (!is_int8_like(dtype) || args.input_tensor(0).dtype != dtype) {
    return fail_kernel(args, "unsupported dtype " + std::string(ir::dtype_name(dtype)));
  }
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qx, get_tensor_quant(args, args.input_tensor(0)));
  const SoftmaxExpParams p = prepare_softmax_exp(static_cast<double>(a.beta), static_cast<double>(qx.scale));
  const int32_t out_min = ir::dtype_min(dtype);
  const int32_t out_max = ir::dtype_max(dtype);
  const std::vector<int32_t> x = load_integers(*args.inputs[0]);
  std::vector<int32_t> y(x.size());
  for (int64_t o = 0; o < l.outer; ++o)
    for (int64_t i = 0; i < l.inner; ++i) {
      int32_t max = x[at(o, 0, i)];
      for (int64_t d = 1; d < l.depth; ++d) max = std::max(max, x[at(o, d, i)]);
      int32_t sum_of_exps = 0;  // Q12.19
      for (int64_t d = 0; d < l.depth; ++d) {
        const int32_t diff = x[at(o, d, i)] - max;
        if (diff >= p.diff_min) {
          sum_of_exps +=
              saturating_rounding_multiply_by_pot(compute_softmax_exp(p, diff), -kSoftmaxAccumulationIntegerBits);
        }
      }
      int num_bits_over_unit = 0;
      const int32_t shifted_scale =
          compute_reciprocal(sum_of_exps, kSoftmaxAccumulationIntegerBits, &num_bits_over_unit);
      for (int64_t d = 0; d < l.depth; ++d) {
        const int32_t diff = x[at(o, d, i)] - max;
        int32_t out = out_min;
        if (diff >= p.diff_min) {
          const int32_t unsat =
              rounding_divide_by_pot(saturating_rounding_doubling_high_mul(shifted_scale, compute_softmax_exp(p, diff)),
                                     num_bits_over_unit + 31 - 8);
          out = std::clamp(unsat + out_min, out_min, out_max);
        }
        y[at(o, d, i)] = out;
      }
    }
  store_integers(*args.outputs[0], y);
  return {};
}

}  // namespace tinyfit::exec::reference
