// Pooling bindings: MaxPool, AveragePool and Mean, int8 / uint8 / float32,
// kWhole and kChunk (channel-wise: the views hold a chunk of channels or are a
// channel slice; MaxPool and AveragePool also over a part of the output's rows
// and cols, when the output view sweeps them: the *_rows kernels take the
// ranges from the views' origins, so the input may be a window of rows). The window geometry, clamp range and requantisation choice
// are prepared here from the node; exec/reference/pool.cc and mean.cc are the
// arithmetic the C kernels reproduce.
#include <algorithm>
#include <bit>

#include "exec/bind_view_calls.h"
#include "exec/reference/kernel.h"
#include "partition/partition_scheme.h"
#include "tinyfit/pool.h"

namespace tinyfit::exec {
namespace {

constexpr const char* kHeader = "tinyfit/pool.h";

reference::KernelArgs describe_args(const KernelCallContext& context) {
  return reference::KernelArgs{context.graph, context.node(), {}, {}};
}

std::string make_hint(const KernelCallContext& context) { return context.node().name + "_params"; }

CFields describe(const tf_quantized_pool_params& p) {
  return {{"kernel_h", format_c_int32(p.kernel_h)},
          {"kernel_w", format_c_int32(p.kernel_w)},
          {"stride_h", format_c_int32(p.stride_h)},
          {"stride_w", format_c_int32(p.stride_w)},
          {"pad_top", format_c_int32(p.pad_top)},
          {"pad_left", format_c_int32(p.pad_left)},
          {"count_include_pad", format_c_int32(p.count_include_pad)},
          {"requantize", format_c_int32(p.requantize)},
          {"input_scale", format_c_float_bound(p.input_scale)},
          {"output_scale", format_c_float_bound(p.output_scale)},
          {"input_zero_point", format_c_int32(p.input_zero_point)},
          {"output_zero_point", format_c_int32(p.output_zero_point)},
          {"output_min", format_c_int32(p.output_min)},
          {"output_max", format_c_int32(p.output_max)}};
}

CFields describe(const tf_f32_pool_params& p) {
  return {{"kernel_h", format_c_int32(p.kernel_h)},
          {"kernel_w", format_c_int32(p.kernel_w)},
          {"stride_h", format_c_int32(p.stride_h)},
          {"stride_w", format_c_int32(p.stride_w)},
          {"pad_top", format_c_int32(p.pad_top)},
          {"pad_left", format_c_int32(p.pad_left)},
          {"count_include_pad", format_c_int32(p.count_include_pad)},
          {"output_min", format_c_float_bound(p.output_min)},
          {"output_max", format_c_float_bound(p.output_max)}};
}

CFields describe(const tf_quantized_mean_params& p) {
  return {{"reduce_mask", format_c_int32(p.reduce_mask)},
          {"keep_dims", format_c_int32(p.keep_dims)},
          {"count", format_c_int32(p.count)},
          {"input_zero_point", format_c_int32(p.input_zero_point)},
          {"multiplier", format_c_int32(p.multiplier)},
          {"shift", format_c_int32(p.shift)},
          {"output_zero_point", format_c_int32(p.output_zero_point)},
          {"output_min", format_c_int32(p.output_min)},
          {"output_max", format_c_int32(p.output_max)}};
}

CFields describe(const tf_f32_mean_params& p) {
  return {{"reduce_mask", format_c_int32(p.reduce_mask)},
          {"keep_dims", format_c_int32(p.keep_dims)},
          {"count", format_c_int32(p.count)},
          {"output_min", format_c_float_bound(p.output_min)},
          {"output_max", format_c_float_bound(p.output_max)}};
}

// Input and output share one element type the kernels know.
Status check_dtypes(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const ir::DType x = context.graph.input_tensor(node, 0).dtype;
  const ir::DType y = context.graph.output_tensor(node, 0).dtype;
  const bool known = y == ir::DType::kF32 || y == ir::DType::kI8 || y == ir::DType::kU8;
  if (x != y || !known) {
    return fail_no_kernel(context, std::string(ir::dtype_name(x)) + " -> " + std::string(ir::dtype_name(y)));
  }
  if (context.graph.input_tensor(node, 0).is_constant) return fail_no_kernel(context, "a constant input");
  return {};
}

template <typename P>
std::unique_ptr<PreparedKernel> make_kernel(const char* name, typename PreparedUnaryKernel<P>::Function function,
                                            const P& params, const char* c_type, const KernelCallContext& context) {
  return std::make_unique<PreparedUnaryKernel<P>>(name, kHeader, function,
                                                  make_flash_struct(params, c_type, make_hint(context), describe(params)));
}

// The whole-call kernel, or its rows variant when the call computes a part
// of the output's rows or cols (the same call shape; it reads the views' origins).
template <typename P>
std::unique_ptr<PreparedKernel> make_window_kernel(const std::string& name,
                                                   typename PreparedUnaryKernel<P>::Function whole,
                                                   typename PreparedUnaryKernel<P>::Function rows, const P& params,
                                                   const char* c_type, const KernelCallContext& context) {
  if (!computes_rows_or_cols(context.call)) return make_kernel(name.c_str(), whole, params, c_type, context);
  return make_kernel((name + "_rows").c_str(), rows, params, c_type, context);
}

Result<tf_quantized_pool_params> make_quantized_pool_params(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const auto& a = node.attr<ir::PoolAttrs>();
  const ir::DType dtype = context.graph.output_tensor(node, 0).dtype;
  const auto i32 = [](int64_t v) { return static_cast<int32_t>(v); };
  const reference::KernelArgs args = describe_args(context);
  TINYFIT_ASSIGN_OR_RETURN(reference::TensorQuant qx, reference::get_tensor_quant(args, args.input_tensor(0)));
  TINYFIT_ASSIGN_OR_RETURN(reference::TensorQuant qy, reference::get_tensor_quant(args, args.output_tensor(0)));
  const reference::ActivationRange range =
      reference::compute_activation_range_quantized(node.activation, dtype, qy.scale, qy.zero_point);
  // TFLite requires equal parameters; ONNX QDQ graphs may differ (reference).
  const bool requantize = !(qx.scale == qy.scale && qx.zero_point == qy.zero_point);
  return tf_quantized_pool_params{i32(a.kernel_h), i32(a.kernel_w), i32(a.stride_h), i32(a.stride_w),
                                  i32(a.pad.top),  i32(a.pad.left), a.count_include_pad ? 1 : 0,
                                  requantize ? 1 : 0, qx.scale, qy.scale, qx.zero_point, qy.zero_point,
                                  range.min, range.max};
}

Result<std::unique_ptr<PreparedKernel>> prepare_window_pool(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const auto& a = node.attr<ir::PoolAttrs>();
  const bool is_max = node.op == ir::OpType::kMaxPool;
  const ir::DType dtype = context.graph.output_tensor(node, 0).dtype;
  const auto i32 = [](int64_t v) { return static_cast<int32_t>(v); };
  if (dtype == ir::DType::kF32) {
    const tf_f32_pool_params params{i32(a.kernel_h),  i32(a.kernel_w),          i32(a.stride_h),
                                    i32(a.stride_w),  i32(a.pad.top),           i32(a.pad.left),
                                    a.count_include_pad ? 1 : 0, node.activation.min, node.activation.max};
    const char* type = "tf_f32_pool_params";
    if (is_max) {
      return make_window_kernel("tf_f32_maxpool_direct", tf_f32_maxpool_direct, tf_f32_maxpool_direct_rows, params,
                                type, context);
    }
    return make_window_kernel("tf_f32_avgpool_direct", tf_f32_avgpool_direct, tf_f32_avgpool_direct_rows, params, type,
                              context);
  }
  TINYFIT_ASSIGN_OR_RETURN(const tf_quantized_pool_params params, make_quantized_pool_params(context));
  const char* type = "tf_quantized_pool_params";
  if (dtype == ir::DType::kI8) {
    if (is_max) {
      return make_window_kernel("tf_qs8_maxpool_direct", tf_qs8_maxpool_direct, tf_qs8_maxpool_direct_rows, params,
                                type, context);
    }
    return make_window_kernel("tf_qs8_avgpool_direct", tf_qs8_avgpool_direct, tf_qs8_avgpool_direct_rows, params,
                              type, context);
  }
  if (is_max) {
    return make_window_kernel("tf_qu8_maxpool_direct", tf_qu8_maxpool_direct, tf_qu8_maxpool_direct_rows, params, type,
                              context);
  }
  return make_window_kernel("tf_qu8_avgpool_direct", tf_qu8_avgpool_direct, tf_qu8_avgpool_direct_rows, params, type,
                            context);
}

Result<std::unique_ptr<PreparedKernel>> prepare_mean(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const auto& a = node.attr<ir::ReduceAttrs>();
  const ir::Shape& in_shape = context.graph.input_tensor(node, 0).shape;
  const ir::DType dtype = context.graph.output_tensor(node, 0).dtype;
  if (in_shape.size() > 4) return fail_no_kernel(context, "an input of rank above 4");
  // Axes of the rank-4 view (make_tf_view pads lower ranks on the left).
  const int pad = 4 - static_cast<int>(in_shape.size());
  int32_t reduce_mask = 0;
  int64_t count = 1;
  for (int axis : a.axes) {
    reduce_mask |= 1 << (axis + pad);
    count *= in_shape[static_cast<size_t>(axis)];
  }
  const int32_t keep_dims = a.keep_dims ? 1 : 0;
  if (dtype == ir::DType::kF32) {
    const tf_f32_mean_params params{reduce_mask, keep_dims, static_cast<int32_t>(count), node.activation.min,
                                    node.activation.max};
    return make_kernel("tf_f32_mean_direct", tf_f32_mean_direct, params, "tf_f32_mean_params", context);
  }
  const reference::KernelArgs args = describe_args(context);
  TINYFIT_ASSIGN_OR_RETURN(reference::TensorQuant qx, reference::get_tensor_quant(args, args.input_tensor(0)));
  TINYFIT_ASSIGN_OR_RETURN(reference::TensorQuant qy, reference::get_tensor_quant(args, args.output_tensor(0)));
  reference::QuantizedMultiplier m =
      reference::quantize_multiplier(static_cast<double>(qx.scale) / static_cast<double>(qy.scale));
  // Fold 1/count into the multiplier as exec/reference/mean.cc does (TFLite:
  // "Readapt output rescaling"); shapes are non-empty, so count >= 1.
  int shift = 63 - std::countl_zero(static_cast<uint64_t>(count));
  shift = std::min(shift, 32);
  shift = std::min(shift, 31 + m.shift);
  m.multiplier = static_cast<int32_t>((static_cast<int64_t>(m.multiplier) << shift) / count);
  m.shift -= shift;
  const reference::ActivationRange range =
      reference::compute_activation_range_quantized(node.activation, dtype, qy.scale, qy.zero_point);
  const tf_quantized_mean_params params{reduce_mask,  keep_dims,      static_cast<int32_t>(count),
                                        qx.zero_point, m.multiplier,  m.shift,
                                        qy.zero_point, range.min,     range.max};
  const char* type = "tf_quantized_mean_params";
  if (dtype == ir::DType::kI8) return make_kernel("tf_qs8_mean_direct", tf_qs8_mean_direct, params, type, context);
  return make_kernel("tf_qu8_mean_direct", tf_qu8_mean_direct, params, type, context);
}

// A global pool by bands of rows (partition::accumulates_rows): kAccumulate
// folds the rows its input view shows into the int32 accumulator (its
// output view), kFinalize writes the output from it (its input view).
Result<std::unique_ptr<PreparedKernel>> prepare_pool_accumulation(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  if (!partition::accumulates_rows(context.graph, node)) {
    return fail_no_kernel(context, "a pool other than a global int8 or uint8 one");
  }
  TINYFIT_ASSIGN_OR_RETURN(const tf_quantized_pool_params params, make_quantized_pool_params(context));
  const bool is_max = node.op == ir::OpType::kMaxPool;
  const bool s8 = context.graph.output_tensor(node, 0).dtype == ir::DType::kI8;
  using Function = PreparedUnaryKernel<tf_quantized_pool_params>::Function;
  struct Entry {
    const char* name;
    Function function;
  };
  Entry entry;
  if (context.call.mode == plan::CallMode::kAccumulate) {
    entry = is_max ? (s8 ? Entry{"tf_qs8_maxpool_direct_accumulate", tf_qs8_maxpool_direct_accumulate}
                         : Entry{"tf_qu8_maxpool_direct_accumulate", tf_qu8_maxpool_direct_accumulate})
                   : (s8 ? Entry{"tf_qs8_avgpool_direct_accumulate", tf_qs8_avgpool_direct_accumulate}
                         : Entry{"tf_qu8_avgpool_direct_accumulate", tf_qu8_avgpool_direct_accumulate});
  } else {
    entry = is_max ? (s8 ? Entry{"tf_qs8_maxpool_finalize", tf_qs8_maxpool_finalize}
                         : Entry{"tf_qu8_maxpool_finalize", tf_qu8_maxpool_finalize})
                   : (s8 ? Entry{"tf_qs8_avgpool_finalize", tf_qs8_avgpool_finalize}
                         : Entry{"tf_qu8_avgpool_finalize", tf_qu8_avgpool_finalize});
  }
  return make_kernel(entry.name, entry.function, params, "tf_quantized_pool_params", context);
}

}  // namespace

Result<std::unique_ptr<PreparedKernel>> prepare_pool_kernel(const KernelCallContext& context) {
  if (context.call.mode == plan::CallMode::kAccumulate || context.call.mode == plan::CallMode::kFinalize) {
    TINYFIT_RETURN_IF_ERROR(check_dtypes(context));
    return prepare_pool_accumulation(context);
  }
  if (context.call.mode != plan::CallMode::kWhole && context.call.mode != plan::CallMode::kChunk) {
    return fail_no_kernel(context, "a pooling operator");
  }
  TINYFIT_RETURN_IF_ERROR(check_dtypes(context));
  if (computes_rows_or_cols(context.call)) {
    const plan::KernelCall& call = context.call;
    if (context.node().op == ir::OpType::kMean || call.inputs.size() != 1 ||
        call.inputs[0].buffer == call.outputs[0].buffer) {
      return fail_no_kernel(context, "a part of the output rows other than a window pool's, not in place");
    }
  }
  if (context.node().op == ir::OpType::kMean) return prepare_mean(context);
  return prepare_window_pool(context);
}

}  // namespace tinyfit::exec
