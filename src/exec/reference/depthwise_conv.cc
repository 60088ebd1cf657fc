// DepthwiseConv2D, NHWC: x[N,H,W,Cin], w[1,KH,KW,Cin*mult], bias[Cin*mult];
// output channel oc reads input channel oc / mult. Quantized: TFLite
// DepthwiseConvPerChannel (reference_integer_ops/depthwise_conv.h), weight zero
// points subtracted for legacy uint8.
#include <algorithm>

#include "exec/reference/kernel.h"
#include "exec/reference/quant_math.h"

namespace tinyfit::exec::reference {
namespace {

struct DepthwiseGeometry {
  int64_t batch, in_rows, in_cols, in_channels;
  int64_t out_rows, out_cols, out_channels, multiplier;
};

// Calls visit(input_index, weight_index) for every in-bounds tap.
template <typename Visit>
void visit_taps(const ir::ConvAttrs& a, const DepthwiseGeometry& g, int64_t n, int64_t oy, int64_t ox,
                int64_t oc, Visit&& visit) {
  const int64_t ic = oc / g.multiplier;
  for (int64_t ky = 0; ky < a.kernel_h; ++ky) {
    const int64_t iy = oy * a.stride_h - a.pad.top + ky * a.dilation_h;
    if (iy < 0 || iy >= g.in_rows) continue;
    for (int64_t kx = 0; kx < a.kernel_w; ++kx) {
      const int64_t ix = ox * a.stride_w - a.pad.left + kx * a.dilation_w;
      if (ix < 0 || ix >= g.in_cols) continue;
      visit(((n * g.in_rows + iy) * g.in_cols + ix) * g.in_channels + ic,
            (ky * a.kernel_w + kx) * g.out_channels + oc);
    }
  }
}

}  // namespace

Status run_depthwise_conv2d(const KernelArgs& args) {
  const auto& a = args.node.attr<ir::ConvAttrs>();
  const auto& xs = args.input_tensor(0).shape;
  const auto& ys = args.output_tensor(0).shape;
  const DepthwiseGeometry g{xs[0], xs[1], xs[2], xs[3], ys[1], ys[2], ys[3], ys[3] / xs[3]};
  const auto total = static_cast<size_t>(args.outputs[0]->num_elements());

  if (args.output_tensor(0).dtype == ir::DType::kF32) {
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> x, load_reals(args, *args.inputs[0], args.input_tensor(0)));
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> w, load_reals(args, *args.inputs[1], args.input_tensor(1)));
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> bias, load_bias_reals(args, g.out_channels));
    std::vector<float> y(total);
    size_t out = 0;
    for (int64_t n = 0; n < g.batch; ++n)
      for (int64_t oy = 0; oy < g.out_rows; ++oy)
        for (int64_t ox = 0; ox < g.out_cols; ++ox)
          for (int64_t oc = 0; oc < g.out_channels; ++oc) {
            double acc = bias[static_cast<size_t>(oc)];
            visit_taps(a, g, n, oy, ox, oc, [&](int64_t xi, int64_t wi) {
              acc += static_cast<double>(x[static_cast<size_t>(xi)]) * w[static_cast<size_t>(wi)];
            });
            y[out++] = apply_activation(args.node.activation, static_cast<float>(acc));
          }
    store_floats(*args.outputs[0], y);
    return {};
  }

  const bool legacy_uint8 = args.input_tensor(0).dtype == ir::DType::kU8;
  TINYFIT_ASSIGN_OR_RETURN(ConvQuant q, prepare_conv_quant(args, g.out_channels, legacy_uint8));
  const std::vector<int32_t> x = load_integers(*args.inputs[0]);
  const std::vector<int32_t> w = load_integers(*args.inputs[1]);
  std::vector<int32_t> y(total);
  size_t out = 0;
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oy = 0; oy < g.out_rows; ++oy)
      for (int64_t ox = 0; ox < g.out_cols; ++ox)
        for (int64_t oc = 0; oc < g.out_channels; ++oc) {
          const auto c = static_cast<size_t>(oc);
          int32_t acc = 0;
          visit_taps(a, g, n, oy, ox, oc, [&](int64_t xi, int64_t wi) {
            acc += (w[static_cast<size_t>(wi)] - q.weights.zero_point[c]) *
                   (x[static_cast<size_t>(xi)] - q.input.zero_point);
          });
          acc = add_bias_wrapping(acc, q.bias[c]);
          acc = multiply_by_quantized_multiplier(acc, q.multipliers[c]) + q.output.zero_point;
          y[out++] = std::clamp(acc, q.range.min, q.range.max);
        }
  store_integers(*args.outputs[0], y);
  return {};
}

}  // namespace tinyfit::exec::reference
