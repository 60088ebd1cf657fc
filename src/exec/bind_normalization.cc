// Bindings of Softmax and LRN.
//
// Quantized Softmax follows TFLite's integer algorithm exactly as the
// reference does (exec/reference/softmax.cc). Its exp depends only on the
// difference of an element to its row's maximum, and 8-bit elements have 256
// differences, so the prepare step tabulates the reference's own fixed-point
// exp (reference/softmax_exp.h) once; the runtime kernel sums the table
// entries and ports the fixed-point reciprocal and output scaling.
// Float Softmax uses expf; LRN runs in float only, like the reference.
//
// Modes: kWhole, and kChunk for a Softmax over a non-channel axis (channel-
// wise: the same call on the chunk's views). LRN reads neighbouring channels,
// so it is neither C- nor A-type and never chunked.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "exec/c_literals.h"
#include "exec/kernel_call.h"
#include "exec/reference/kernel.h"
#include "exec/reference/softmax_exp.h"
#include "exec/view_call_kernel.h"
#include "tinyfit/normalization.h"

namespace tinyfit::exec {
namespace {

constexpr std::string_view kHeader = "tinyfit/normalization.h";
constexpr size_t kExpTableEntries = 256;  // differences 0..-255 of 8-bit elements
constexpr int64_t kMaxQuantizedRow = 4095;  // (2^31 - 1) / 2^19 exps of 1.0 in Q12.19

using Fields = std::vector<std::pair<std::string, std::string>>;

Fields describe_softmax_lut(const tf_softmax_lut_params& p, CallEmitter& emitter) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(p.exp_table);
  const std::string table = emitter.define_array(
      "int32_t", "softmax_exp", std::span<const uint8_t>(bytes, kExpTableEntries * sizeof(int32_t)));
  return {{"axis", std::to_string(p.axis)}, {"exp_table", table}};
}
Fields describe_f32_softmax(const tf_f32_softmax_params& p, CallEmitter&) {
  return {{"axis", std::to_string(p.axis)}, {"beta", format_c_float(p.beta)}};
}
Fields describe_lrn(const tf_lrn_params& p, CallEmitter&) {
  return {{"size", std::to_string(p.size)},           {"alpha", format_c_float(p.alpha)},
          {"beta", format_c_float(p.beta)},           {"bias", format_c_float(p.bias)},
          {"output_min", format_c_float(p.output_min)}, {"output_max", format_c_float(p.output_max)}};
}

const ViewCallKernel<tf_softmax_lut_params>::Kernel kSoftmaxS8{"tf_qs8_softmax_lut", kHeader, "tf_softmax_lut_params",
                                                               tf_qs8_softmax_lut, describe_softmax_lut};
const ViewCallKernel<tf_softmax_lut_params>::Kernel kSoftmaxU8{"tf_qu8_softmax_lut", kHeader, "tf_softmax_lut_params",
                                                               tf_qu8_softmax_lut, describe_softmax_lut};
const ViewCallKernel<tf_f32_softmax_params>::Kernel kSoftmaxF32{
    "tf_f32_softmax_direct", kHeader, "tf_f32_softmax_params", tf_f32_softmax_direct, describe_f32_softmax};
const ViewCallKernel<tf_lrn_params>::Kernel kLrn{"tf_f32_lrn_direct", kHeader, "tf_lrn_params", tf_f32_lrn_direct,
                                                 describe_lrn};

// exp_table[k] = the reference's exp of the difference -k, or 0 below
// diff_min, where the reference skips the element: a 0 adds nothing to the
// sum and scales to an output of exactly the minimum, as skipping does.
std::vector<int32_t> tabulate_softmax_exp(const reference::SoftmaxExpParams& params) {
  std::vector<int32_t> table(kExpTableEntries, 0);
  for (size_t k = 0; k < kExpTableEntries; ++k) {
    const auto diff = -static_cast<int32_t>(k);
    if (diff >= params.diff_min) table[k] = reference::compute_softmax_exp(params, diff);
  }
  return table;
}

Result<std::unique_ptr<PreparedKernel>> prepare_softmax(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const ir::Tensor& x = context.graph.input_tensor(node, 0);
  const ir::Tensor& y = context.graph.output_tensor(node, 0);
  const auto& a = node.attr<ir::SoftmaxAttrs>();
  const int32_t axis = to_view_axis(a.axis, x.shape.size());
  if (y.dtype == ir::DType::kF32 && x.dtype == ir::DType::kF32) {
    return make_single_call_kernel(kSoftmaxF32, tf_f32_softmax_params{axis, a.beta});
  }
  if (!reference::is_int8_like(y.dtype) || x.dtype != y.dtype) {
    return fail_no_kernel(context, std::string(ir::dtype_name(x.dtype)) + " to " +
                                       std::string(ir::dtype_name(y.dtype)));
  }
  // TFLite's Q12.19 sum of 4096 maximal exps overflows int32 (undefined in C).
  if (x.shape[static_cast<size_t>(a.axis)] > kMaxQuantizedRow) {
    return fail_no_kernel(context, "quantized softmax rows longer than " + std::to_string(kMaxQuantizedRow));
  }
  const reference::KernelArgs args{context.graph, node, {}, {}};
  TINYFIT_ASSIGN_OR_RETURN(const reference::TensorQuant qx, reference::get_tensor_quant(args, x));
  std::vector<std::vector<int32_t>> tables;
  tables.push_back(tabulate_softmax_exp(
      reference::prepare_softmax_exp(static_cast<double>(a.beta), static_cast<double>(qx.scale))));
  const tf_softmax_lut_params params{axis, tables.front().data()};
  return make_single_call_kernel(y.dtype == ir::DType::kI8 ? kSoftmaxS8 : kSoftmaxU8, params, std::move(tables));
}

// An unbounded side of the fused activation clamps at +-FLT_MAX (generated
// code has no infinity literal): only an infinite output would differ.
float bound_to_finite(float value) { return std::max(-FLT_MAX, std::min(FLT_MAX, value)); }

Result<std::unique_ptr<PreparedKernel>> prepare_lrn(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  if (context.graph.input_tensor(node, 0).dtype != ir::DType::kF32 ||
      context.graph.output_tensor(node, 0).dtype != ir::DType::kF32) {
    return fail_no_kernel(context, "LRN outside float32");
  }
  const auto& a = node.attr<ir::LrnAttrs>();
  const tf_lrn_params params{static_cast<int32_t>(a.size), a.alpha, a.beta, a.bias,
                             bound_to_finite(node.activation.min), bound_to_finite(node.activation.max)};
  return make_single_call_kernel(kLrn, params);
}

}  // namespace

Result<std::unique_ptr<PreparedKernel>> prepare_normalization_kernel(const KernelCallContext& context) {
  TINYFIT_RETURN_IF_ERROR(check_whole_or_channel_chunk(context));
  TINYFIT_RETURN_IF_ERROR(check_view_ranks(context));
  if (context.graph.tensor(context.node().inputs.at(0)).is_constant) {
    return fail_no_kernel(context, "a constant input");
  }
  switch (context.node().op) {
    case ir::OpType::kSoftmax: return prepare_softmax(context);
    case ir::OpType::kLrn: return prepare_lrn(context);
    default: break;
  }
  return fail_no_kernel(context, std::string(ir::op_type_name(context.node().op)) + " in the normalisation family");
}

}  // namespace tinyfit::exec
