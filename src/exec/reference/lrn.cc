// Local response normalisation across channels (the last axis of NHWC), float
// only, ONNX formula: y = x / (bias + alpha/size * sum of squares over channels
// [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta.
#include <algorithm>
#include <cmath>

#include "exec/reference/kernel.h"

namespace tinyfit::exec::reference {

Status run_lrn(const KernelArgs& args) {
  const auto& a = args.node.attr<ir::LrnAttrs>();
  if (args.output_tensor(0).dtype != ir::DType::kF32) {
    return fail_kernel(args, "LRN runs in float only, output is " +
                                 std::string(ir::dtype_name(args.output_tensor(0).dtype)));
  }
  TINYFIT_ASSIGN_OR_RETURN(std::vector<float> x, load_reals(args, *args.inputs[0], args.input_tensor(0)));
  const int64_t channels = args.input_tensor(0).shape.back();
  const int64_t before = (a.size - 1) / 2;
  const int64_t after = a.size - 1 - before;
  std::vector<float> y(x.size());
  for (size_t base = 0; base < x.size(); base += static_cast<size_t>(channels)) {
    for (int64_t c = 0; c < channels; ++c) {
      double square_sum = 0;
      for (int64_t k = std::max<int64_t>(0, c - before); k <= std::min(channels - 1, c + after); ++k) {
        const double v = x[base + static_cast<size_t>(k)];
        square_sum += v * v;
      }
      const double denominator = std::pow(static_cast<double>(a.bias) + static_cast<double>(a.alpha) /
                                                                          static_cast<double>(a.size) * square_sum,
                                          static_cast<double>(a.beta));
      y[base + static_cast<size_t>(c)] = apply_activation(
          args.node.activation, static_cast<float>(x[base + static_cast<size_t>(c)] / denominator));
    }
  }
  store_floats(*args.outputs[0], y);
  return {};
}

}  // namespace tinyfit::exec::reference
