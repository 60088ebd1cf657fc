// MaxPool and AveragePool over rows and cols of NHWC input.
// Quantized AveragePool: TFLite reference_integer_ops::AveragePool (int32 sum,
// divide rounding halves away from zero, count = in-bounds taps unless
// count_include_pad); input and output share quantization parameters there, so
// differing parameters (ONNX QDQ) requantize the average through real values.
// Quantized MaxPool: max in the quantized domain (parameters shared).
#include <algorithm>
#include <limits>

#include "exec/reference/kernel.h"

namespace tinyfit::exec::reference {
namespace {

struct PoolGeometry {
  int64_t batch, in_rows, in_cols, channels, out_rows, out_cols;
};

PoolGeometry describe(const KernelArgs& args) {
  const auto& x = args.input_tensor(0).shape;
  const auto& y = args.output_tensor(0).shape;
  return {x[0], x[1], x[2], x[3], y[1], y[2]};
}

// Calls visit(input_index) for each in-bounds tap of output (n, oy, ox, c);
// returns the number of taps visited.
template <typename Visit>
int64_t visit_window(const ir::PoolAttrs& a, const PoolGeometry& g, int64_t n, int64_t oy, int64_t ox,
                     int64_t c, Visit&& visit) {
  int64_t count = 0;
  for (int64_t ky = 0; ky < a.kernel_h; ++ky) {
    const int64_t iy = oy * a.stride_h - a.pad.top + ky;
    if (iy < 0 || iy >= g.in_rows) continue;
    for (int64_t kx = 0; kx < a.kernel_w; ++kx) {
      const int64_t ix = ox * a.stride_w - a.pad.left + kx;
      if (ix < 0 || ix >= g.in_cols) continue;
      visit(((n * g.in_rows + iy) * g.in_cols + ix) * g.channels + c);
      ++count;
    }
  }
  return count;
}

// Runs `compute(n, oy, ox, c) -> value` for every output element in order.
template <typename T, typename Compute>
std::vector<T> map_outputs(const PoolGeometry& g, Compute&& compute) {
  std::vector<T> y;
  y.reserve(static_cast<size_t>(g.batch * g.out_rows * g.out_cols * g.channels));
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oy = 0; oy < g.out_rows; ++oy)
      for (int64_t ox = 0; ox < g.out_cols; ++ox)
        for (int64_t c = 0; c < g.channels; ++c) y.push_back(compute(n, oy, ox, c));
  return y;
}

Status run_pool(const KernelArgs& args, bool is_max) {
  const auto& a = args.node.attr<ir::PoolAttrs>();
  const PoolGeometry g = describe(args);
  const ir::DType dtype = args.output_tensor(0).dtype;
  const auto full_window = a.kernel_h * a.kernel_w;

  if (dtype == ir::DType::kF32) {
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> x, load_reals(args, *args.inputs[0], args.input_tensor(0)));
    auto y = map_outputs<float>(g, [&](int64_t n, int64_t oy, int64_t ox, int64_t c) {
      double sum = 0;
      float max = -std::numeric_limits<float>::infinity();
      const int64_t count = visit_window(a, g, n, oy, ox, c, [&](int64_t i) {
        sum += x[static_cast<size_t>(i)];
        max = std::max(max, x[static_cast<size_t>(i)]);
      });
      const int64_t divisor = a.count_include_pad ? full_window : count;
      const float value = is_max ? max : static_cast<float>(sum / static_cast<double>(std::max<int64_t>(divisor, 1)));
      return apply_activation(args.node.activation, value);
    });
    store_floats(*args.outputs[0], y);
    return {};
  }
  if (!is_int8_like(dtype) || args.input_tensor(0).dtype != dtype) {
    return fail_kernel(args, "unsupported dtype " + std::string(ir::dtype_name(dtype)));
  }
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qx, get_tensor_quant(args, args.input_tensor(0)));
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qy, get_tensor_quant(args, args.output_tensor(0)));
  const bool same_params = qx.scale == qy.scale && qx.zero_point == qy.zero_point;
  const ActivationRange range =
      compute_activation_range_quantized(args.node.activation, dtype, qy.scale, qy.zero_point);
  const std::vector<int32_t> x = load_integers(*args.inputs[0]);
  // Requantizes a value on the input's scale to the output's (identity when
  // the parameters agree, as TFLite requires).
  const auto requantize = [&](double input_domain_value) {
    if (same_params) return static_cast<int32_t>(input_domain_value);
    const double real = static_cast<double>(qx.scale) * (input_domain_value - qx.zero_point);
    return round_to_int32(static_cast<float>(real / static_cast<double>(qy.scale))) + qy.zero_point;
  };
  auto y = map_outputs<int32_t>(g, [&](int64_t n, int64_t oy, int64_t ox, int64_t c) {
    int32_t sum = 0;
    int32_t max = std::numeric_limits<int32_t>::min();
    const int64_t count = visit_window(a, g, n, oy, ox, c, [&](int64_t i) {
      sum += x[static_cast<size_t>(i)];
      max = std::max(max, x[static_cast<size_t>(i)]);
    });
    int32_t value = 0;
    if (is_max) {
      value = count == 0 ? qy.zero_point : requantize(max);
    } else {
      const auto divisor = static_cast<int32_t>(a.count_include_pad ? full_window : count);
      // A padded tap is real 0, i.e. the zero point, and counts when the
      // divisor counts it (ONNX count_include_pad; TFLite never sets it).
      if (a.count_include_pad) sum += static_cast<int32_t>(full_window - count) * qx.zero_point;
      if (divisor == 0) {
        value = qy.zero_point;
      } else if (same_params) {
        value = sum > 0 ? (sum + divisor / 2) / divisor : (sum - divisor / 2) / divisor;
      } else {
        value = requantize(static_cast<double>(sum) / divisor);
      }
    }
    return std::clamp(value, range.min, range.max);
  });
  store_integers(*args.outputs[0], y);
  return {};
}

}  // namespace

Status run_max_pool(const KernelArgs& args) { return run_pool(args, true); }
Status run_average_pool(const KernelArgs& args) { return run_pool(args, false); }

}  // namespace tinyfit::exec::reference
