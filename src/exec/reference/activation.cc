// Sigmoid (TFLite LOGISTIC) and HardSwish.
// Quantized Sigmoid: reference_integer_ops::Logistic (input in Q4.27 via a
// multiplier, gemmlowp logistic, output scale 1/256 at the dtype's minimum).
// Quantized HardSwish: reference_ops::HardSwish with its 16-bit fixed point.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exec/reference/fixed_point.h"
#include "exec/reference/kernel.h"

namespace tinyfit::exec::reference {
namespace {

// TFLite CalculateInputRadius.
int32_t compute_input_radius(int input_integer_bits, int input_left_shift) {
  const double max_input_rescaled = 1.0 * ((1 << input_integer_bits) - 1) *
                                    static_cast<double>(1ll << (31 - input_integer_bits)) /
                                    static_cast<double>(1ll << input_left_shift);
  return static_cast<int32_t>(std::floor(max_input_rescaled));
}

int16_t saturate_int16(int32_t x) {
  return static_cast<int16_t>(std::clamp<int32_t>(x, std::numeric_limits<int16_t>::min(),
                                                  std::numeric_limits<int16_t>::max()));
}

// gemmlowp 16-bit SaturatingRoundingDoublingHighMul.
int16_t saturating_rounding_doubling_high_mul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = static_cast<int32_t>(a) * b;
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// TFLite's non-rounding variant (it cancels the rounding bias of the above).
int16_t saturating_doubling_high_mul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((static_cast<int32_t>(a) * b) / (1 << 15));
}

int16_t rounding_divide_by_pot16(int16_t x, int exponent) {
  const int32_t mask = (1 << exponent) - 1;
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// TFLite DownScaleInt32ToInt16Multiplier.
int16_t downscale_multiplier_to_int16(int32_t multiplier) {
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (multiplier >= std::numeric_limits<int32_t>::max() - kRoundingOffset) {
    return std::numeric_limits<int16_t>::max();
  }
  return static_cast<int16_t>((multiplier + kRoundingOffset) >> 16);
}

}  // namespace

Status run_sigmoid(const KernelArgs& args) {
  const ir::DType dtype = args.output_tensor(0).dtype;
  if (dtype == ir::DType::kF32) {
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> x, load_reals(args, *args.inputs[0], args.input_tensor(0)));
    for (float& v : x) v = apply_activation(args.node.activation, 1.0f / (1.0f + std::exp(-v)));
    store_floats(*args.outputs[0], x);
    return {};
  }
  if (!is_int8_like(dtype) || args.input_tensor(0).dtype != dtype) {
    return fail_kernel(args, "unsupported dtype " + std::string(ir::dtype_name(dtype)));
  }
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qx, get_tensor_quant(args, args.input_tensor(0)));
  // TFLite logistic_common.cc Prepare.
  constexpr int kInputIntegerBits = 4;
  const double input_real_multiplier =
      static_cast<double>(qx.scale) * static_cast<double>(1 << (31 - kInputIntegerBits));
  int input_left_shift = 0;
  const double q = std::frexp(input_real_multiplier, &input_left_shift);
  const auto input_multiplier = static_cast<int32_t>(std::round(q * static_cast<double>(1ll << 31)));
  const int32_t radius = compute_input_radius(kInputIntegerBits, input_left_shift);
  const int32_t out_min = ir::dtype_min(dtype);
  const int32_t out_max = ir::dtype_max(dtype);
  std::vector<int32_t> x = load_integers(*args.inputs[0]);
  for (int32_t& v : x) {
    const int32_t centered = v - qx.zero_point;
    if (centered <= -radius) {
      v = out_min;
    } else if (centered >= radius) {
      v = out_max;
    } else {
      const int32_t in_q4 = multiply_by_quantized_multiplier(centered, input_multiplier, input_left_shift);
      const int32_t out_q0 = compute_logistic(in_q4, kInputIntegerBits);
      v = std::clamp(rounding_divide_by_pot(out_q0, 31 - 8) + out_min, out_min, out_max);
    }
  }
  store_integers(*args.outputs[0], x);
  return {};
}

Status run_hard_swish(const KernelArgs& args) {
  const ir::DType dtype = args.output_tensor(0).dtype;
  if (dtype == ir::DType::kF32) {
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> x, load_reals(args, *args.inputs[0], args.input_tensor(0)));
    for (float& v : x) {
      v = apply_activation(args.node.activation, v * std::min(6.0f, std::max(0.0f, v + 3.0f)) / 6.0f);
    }
    store_floats(*args.outputs[0], x);
    return {};
  }
  if (!is_int8_like(dtype) || args.input_tensor(0).dtype != dtype) {
    return fail_kernel(args, "unsupported dtype " + std::string(ir::dtype_name(dtype)));
  }
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qx, get_tensor_quant(args, args.input_tensor(0)));
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qy, get_tensor_quant(args, args.output_tensor(0)));
  // TFLite hard_swish Prepare: scales combined in float, then widened.
  const float hires_input_scale = (1.0f / 128.0f) * qx.scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const QuantizedMultiplier output_m = quantize_multiplier(static_cast<double>(hires_input_scale / qy.scale));
  const QuantizedMultiplier reluish_m =
      quantize_multiplier(static_cast<double>(hires_input_scale / reluish_scale));
  if (output_m.shift > 0) return fail_kernel(args, "output scale too small for quantized hard swish");
  const int16_t output_multiplier = downscale_multiplier_to_int16(output_m.multiplier);
  const int16_t reluish_multiplier = downscale_multiplier_to_int16(reluish_m.multiplier);
  const int32_t out_min = ir::dtype_min(dtype);
  const int32_t out_max = ir::dtype_max(dtype);

  std::vector<int32_t> x = load_integers(*args.inputs[0]);
  for (int32_t& v : x) {
    const auto input_value = static_cast<int16_t>(v - qx.zero_point);
    const auto hires = static_cast<int16_t>(input_value * (1 << 7));
    const int16_t preshift_output = saturating_rounding_doubling_high_mul16(hires, output_multiplier);
    int16_t reluish = hires;
    if (reluish_m.shift > 0) reluish = saturate_int16(reluish * (1 << (reluish_m.shift - 1)));
    reluish = saturating_rounding_doubling_high_mul16(reluish, reluish_multiplier);
    if (reluish_m.shift > 0) reluish = saturate_int16(reluish * 2);
    if (reluish_m.shift < 0) reluish = rounding_divide_by_pot16(reluish, -reluish_m.shift);
    reluish = static_cast<int16_t>((reluish + (1 << 15)) >> 1);  // [-1, 1] -> [0, 1]
    const int16_t preshift = saturating_doubling_high_mul16(reluish, preshift_output);
    int32_t out = rounding_divide_by_pot16(preshift, -output_m.shift);
    out += qy.zero_point;
    v = std::clamp(out, out_min, out_max);
  }
  store_integers(*args.outputs[0], x);
  return {};
}

}  // namespace tinyfit::exec::reference
