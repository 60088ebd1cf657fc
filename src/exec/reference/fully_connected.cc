// FullyConnected: x viewed as [B, In], w[Out, In], bias[Out].
// Quantized: TFLite reference_integer_ops::FullyConnected, per-tensor weights
// (per-channel scales are accepted and applied per output), multiplier from
// the float product of the scales like GetQuantizedConvolutionMultipler.
#include <algorithm>

#include "exec/reference/kernel.h"
#include "exec/reference/quant_math.h"

namespace tinyfit::exec::reference {

Status run_fully_connected(const KernelArgs& args) {
  const auto& ws = args.input_tensor(1).shape;
  if (ws.size() != 2) return fail_kernel(args, "weights must be [Out, In], are " + ir::format_shape(ws));
  const int64_t out_features = ws[0];
  const int64_t in_features = ws[1];
  const int64_t elements = args.inputs[0]->num_elements();
  if (in_features == 0 || elements % in_features != 0) {
    return fail_kernel(args, "input of " + std::to_string(elements) + " elements is not a multiple of " +
                                 std::to_string(in_features) + " features");
  }
  const int64_t batch = elements / in_features;
  if (args.outputs[0]->num_elements() != batch * out_features) {
    return fail_kernel(args, "output " + ir::format_shape(args.output_tensor(0).shape) + " is not [" +
                                 std::to_string(batch) + ", " + std::to_string(out_features) + "]");
  }
  const auto at = [](int64_t i) { return static_cast<size_t>(i); };

  if (args.output_tensor(0).dtype == ir::DType::kF32) {
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> x, load_reals(args, *args.inputs[0], args.input_tensor(0)));
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> w, load_reals(args, *args.inputs[1], args.input_tensor(1)));
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> bias, load_bias_reals(args, out_features));
    std::vector<float> y(at(batch * out_features));
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t o = 0; o < out_features; ++o) {
        double acc = bias[at(o)];
        for (int64_t i = 0; i < in_features; ++i) {
          acc += static_cast<double>(x[at(b * in_features + i)]) * w[at(o * in_features + i)];
        }
        y[at(b * out_features + o)] = apply_activation(args.node.activation, static_cast<float>(acc));
      }
    store_floats(*args.outputs[0], y);
    return {};
  }

  TINYFIT_ASSIGN_OR_RETURN(ConvQuant q, prepare_conv_quant(args, out_features, /*float_product=*/true));
  const std::vector<int32_t> x = load_integers(*args.inputs[0]);
  const std::vector<int32_t> w = load_integers(*args.inputs[1]);
  std::vector<int32_t> y(at(batch * out_features));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < out_features; ++o) {
      int32_t acc = 0;
      for (int64_t i = 0; i < in_features; ++i) {
        acc += (w[at(o * in_features + i)] - q.weights.zero_point[at(o)]) *
               (x[at(b * in_features + i)] - q.input.zero_point);
      }
      acc = add_bias_wrapping(acc, q.bias[at(o)]);
      acc = multiply_by_quantized_multiplier(acc, q.multipliers[at(o)]) + q.output.zero_point;
      y[at(b * out_features + o)] = std::clamp(acc, q.range.min, q.range.max);
    }
  store_integers(*args.outputs[0], y);
  return {};
}

}  // namespace tinyfit::exec::reference
