// Bindings of the data-movement operators and of plan copies: Concat, Split,
// Slice, Transpose, Pad and ChannelShuffle move elements of any dtype (x8 kernels given the
// element size); only Concat of quantized inputs whose parameters differ from
// the output's touches values (TFLite ConcatenationWithScaling, as the
// reference does it), and a Concat's fused activation clamps its output after.
//
// Modes: kWhole for every operator, and kChunk for a Pad that leaves the
// channels alone (its kind is channel-wise; the call is the same on the
// chunk's views). Concat, Split, Slice, Transpose and ChannelShuffle are
// neither C- nor A-type (ir/ops/data_movement.cc), so verify_plan never lets a plan call
// them by chunks: PEX moves channel chunks with kCopy calls instead.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "exec/bind_output_clamp.h"
#include "exec/c_literals.h"
#include "exec/kernel_call.h"
#include "exec/reference/kernel.h"
#include "exec/view_call_kernel.h"
#include "tinyfit/data_movement.h"

namespace tinyfit::exec {
namespace {

constexpr std::string_view kHeader = "tinyfit/data_movement.h";

using Fields = std::vector<std::pair<std::string, std::string>>;

Fields describe_concat(const tf_concat_params& p, CallEmitter&) {
  return {{"axis", std::to_string(p.axis)},
          {"offset", std::to_string(p.offset)},
          {"element_bytes", std::to_string(p.element_bytes)}};
}
Fields describe_concat_rescale(const tf_concat_rescale_params& p, CallEmitter&) {
  return {{"axis", std::to_string(p.axis)},
          {"offset", std::to_string(p.offset)},
          {"scale", format_c_float(p.scale)},
          {"bias", format_c_float(p.bias)},
          {"output_zero_point", std::to_string(p.output_zero_point)}};
}
Fields describe_slice(const tf_slice_params& p, CallEmitter&) {
  return {{"begin", format_c_int_array(p.begin)},
          {"step", format_c_int_array(p.step)},
          {"element_bytes", std::to_string(p.element_bytes)}};
}
Fields describe_transpose(const tf_transpose_params& p, CallEmitter&) {
  return {{"perm", format_c_int_array(p.perm)}, {"element_bytes", std::to_string(p.element_bytes)}};
}
Fields describe_channel_shuffle(const tf_channel_shuffle_params& p, CallEmitter&) {
  return {{"groups", std::to_string(p.groups)}, {"element_bytes", std::to_string(p.element_bytes)}};
}
Fields describe_pad(const tf_pad_params& p, CallEmitter&) {
  return {{"before", format_c_int_array(p.before)},
          {"element_bytes", std::to_string(p.element_bytes)},
          {"fill", format_c_byte_array(p.fill)}};
}

const ViewCallKernel<tf_concat_params>::Kernel kConcatCopy{"tf_x8_concat_copy", kHeader, "tf_concat_params",
                                                           tf_x8_concat_copy, describe_concat};
const ViewCallKernel<tf_concat_rescale_params>::Kernel kConcatRescaleS8{
    "tf_qs8_concat_rescale", kHeader, "tf_concat_rescale_params", tf_qs8_concat_rescale, describe_concat_rescale};
const ViewCallKernel<tf_concat_rescale_params>::Kernel kConcatRescaleU8{
    "tf_qu8_concat_rescale", kHeader, "tf_concat_rescale_params", tf_qu8_concat_rescale, describe_concat_rescale};
const ViewCallKernel<tf_slice_params>::Kernel kSlice{"tf_x8_slice", kHeader, "tf_slice_params", tf_x8_slice,
                                                     describe_slice};
const ViewCallKernel<tf_transpose_params>::Kernel kTranspose{"tf_x8_transpose", kHeader, "tf_transpose_params",
                                                             tf_x8_transpose, describe_transpose};
const ViewCallKernel<tf_pad_params>::Kernel kPad{"tf_x8_pad", kHeader, "tf_pad_params", tf_x8_pad, describe_pad};
const ViewCallKernel<tf_channel_shuffle_params>::Kernel kChannelShuffle{
    "tf_x8_channel_shuffle", kHeader, "tf_channel_shuffle_params", tf_x8_channel_shuffle, describe_channel_shuffle};

// A plan copy (kCopy): the whole input view into the output view.
class CopyKernel final : public PreparedKernel {
 public:
  explicit CopyKernel(int32_t element_bytes) : element_bytes_(element_bytes) {}
  std::string_view kernel_name() const override { return "tf_x8_copy"; }
  void run(const KernelViews& views) const override {
    tf_x8_copy(&views.inputs[0], &views.outputs[0], element_bytes_);
  }
  Status emit(CallEmitter& emitter) const override {
    emitter.call(kHeader, "tf_x8_copy",
                 {emitter.input_view(0), emitter.output_view(0), std::to_string(element_bytes_)});
    return {};
  }

 private:
  int32_t element_bytes_;
};

int32_t element_bytes_of(const ir::Tensor& tensor) {
  return static_cast<int32_t>(ir::dtype_size_bytes(tensor.dtype));
}

// The reference's own per-tensor quantization lookup, so that missing or
// per-channel parameters give the reference's error for this node.
Result<reference::TensorQuant> get_quant(const KernelCallContext& context, const ir::Tensor& tensor) {
  const reference::KernelArgs args{context.graph, context.node(), {}, {}};
  return reference::get_tensor_quant(args, tensor);
}

// Every node input must be an activation with a view (a constant would need
// its bytes in a view of flash, which no kernel here takes).
Status check_inputs_have_views(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  for (ir::TensorId t : node.inputs) {
    if (t == ir::kNoTensor || context.graph.tensor(t).is_constant) return fail_no_kernel(context, "a constant input");
  }
  TINYFIT_CHECK(context.call.inputs.size() == node.inputs.size())
      << "node '" << node.name << "': " << context.call.inputs.size() << " input views for " << node.inputs.size()
      << " inputs";
  return {};
}

Result<std::unique_ptr<PreparedKernel>> prepare_copy(const KernelCallContext& context) {
  const plan::KernelCall& call = context.call;
  const ir::DType in = context.plan.buffers.at(static_cast<size_t>(call.inputs.at(0).buffer)).dtype;
  const ir::DType out = context.plan.buffers.at(static_cast<size_t>(call.outputs.at(0).buffer)).dtype;
  TINYFIT_CHECK(ir::dtype_size_bytes(in) == ir::dtype_size_bytes(out))
      << "a copy from " << ir::dtype_name(in) << " to " << ir::dtype_name(out);
  const int rank = call.inputs[0].rank();
  if (rank > 4) return fail_no_kernel(context, "views of rank " + std::to_string(rank));
  return std::make_unique<CopyKernel>(static_cast<int32_t>(ir::dtype_size_bytes(in)));
}

// Whether the Concat's input view `i` is already its slice of the output
// view, which starts `offset` elements into the output on `axis`.
bool is_own_slice(const plan::KernelCall& call, size_t i, size_t axis, int64_t offset) {
  const plan::View& x = call.inputs.at(i);
  const plan::View& y = call.outputs.at(0);
  return x.buffer == y.buffer && x.sweeps.empty() && y.sweeps.empty() && x.strides == y.strides &&
         x.offset_elements == y.offset_elements + offset * y.strides.at(axis);
}

Result<std::unique_ptr<PreparedKernel>> prepare_concat(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const ir::Tensor& y = context.graph.output_tensor(node, 0);
  const int axis = to_view_axis(node.attr<ir::ConcatAttrs>().axis, y.shape.size());
  const bool quantized = reference::is_int8_like(y.dtype);
  reference::TensorQuant qy;
  if (quantized) {
    TINYFIT_ASSIGN_OR_RETURN(qy, get_quant(context, y));
  }
  std::vector<ViewCallKernel<tf_concat_params>::Call> copies;
  std::vector<ViewCallKernel<tf_concat_rescale_params>::Call> rescales;
  int32_t offset = 0;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ir::Tensor& x = context.graph.input_tensor(node, i);
    if (x.dtype != y.dtype) return fail_no_kernel(context, "inputs whose dtype differs from the output's");
    reference::TensorQuant qx;
    if (quantized) {
      TINYFIT_ASSIGN_OR_RETURN(qx, get_quant(context, x));
    }
    const bool same_quant = !quantized || (qx.scale == qy.scale && qx.zero_point == qy.zero_point);
    if (same_quant && is_own_slice(context.call, i, static_cast<size_t>(node.attr<ir::ConcatAttrs>().axis), offset)) {
      // Its writer wrote it in place (plan/write_concat_in_place.h): nothing to copy.
      offset += static_cast<int32_t>(x.shape[static_cast<size_t>(node.attr<ir::ConcatAttrs>().axis)]);
      continue;
    }
    if (!same_quant) {
      // The reference's float arithmetic, operation for operation.
      const float scale = qx.scale * (1.0f / qy.scale);
      const float bias = static_cast<float>(-qx.zero_point) * scale;
      rescales.push_back({i, 0, {axis, offset, scale, bias, qy.zero_point}});
    } else {
      copies.push_back({i, 0, {axis, offset, element_bytes_of(y)}});
    }
    offset += static_cast<int32_t>(x.shape[static_cast<size_t>(node.attr<ir::ConcatAttrs>().axis)]);
  }
  std::vector<std::unique_ptr<PreparedKernel>> parts;
  if (!copies.empty()) parts.push_back(std::make_unique<ViewCallKernel<tf_concat_params>>(kConcatCopy, copies));
  if (!rescales.empty()) {
    parts.push_back(std::make_unique<ViewCallKernel<tf_concat_rescale_params>>(
        y.dtype == ir::DType::kI8 ? kConcatRescaleS8 : kConcatRescaleU8, rescales));
  }
  if (!node.activation.is_none()) {
    if (!quantized && y.dtype != ir::DType::kF32) return fail_no_kernel(context, "a fused activation on this dtype");
    parts.push_back(make_output_clamp_kernel(y, node.activation, qy));
  }
  // Every input written in place and no activation: no kernel runs.
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_unique<KernelSequence>(std::move(parts));
}

// One slice per output: output i starts where the sizes before it end.
Result<std::unique_ptr<PreparedKernel>> prepare_split(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const ir::Tensor& x = context.graph.input_tensor(node, 0);
  const auto& a = node.attr<ir::SplitAttrs>();
  const int axis = to_view_axis(a.axis, x.shape.size());
  std::vector<ViewCallKernel<tf_slice_params>::Call> calls;
  int64_t offset = 0;
  size_t view = 0;
  for (size_t o = 0; o < node.outputs.size(); ++o) {
    if (node.outputs[o] != ir::kNoTensor) {
      if (context.graph.tensor(node.outputs[o]).dtype != x.dtype) {
        return fail_no_kernel(context, "outputs whose dtype differs from the input's");
      }
      tf_slice_params p{{0, 0, 0, 0}, {1, 1, 1, 1}, element_bytes_of(x)};
      p.begin[axis] = static_cast<int32_t>(offset);
      calls.push_back({0, view++, p});
    }
    offset += a.sizes[o];
  }
  return std::make_unique<ViewCallKernel<tf_slice_params>>(kSlice, std::move(calls));
}

Result<std::unique_ptr<PreparedKernel>> prepare_slice(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const ir::Tensor& x = context.graph.input_tensor(node, 0);
  if (context.graph.output_tensor(node, 0).dtype != x.dtype) {
    return fail_no_kernel(context, "an output whose dtype differs from the input's");
  }
  const auto& a = node.attr<ir::SliceAttrs>();
  tf_slice_params p{};
  std::array<int32_t, 4> begin = to_view_axes(a.begin, 0);
  // In a row (or col) loop the input view of a swept axis is the slice's
  // window of the output's rows (ir::OpDecl::map_axes: a window of one row,
  // stride `step`, padding -begin, never clamped at the start): it starts at
  // the row the first output row reads.
  const plan::View& output = context.call.outputs.at(0);
  for (const plan::Sweep& sweep : output.sweeps) {
    if (output.rank() != 4 || (sweep.axis != 1 && sweep.axis != 2)) continue;
    const plan::Sweep* window = context.call.inputs.at(0).find_sweep(sweep.axis);
    if (window == nullptr || window->loop != sweep.loop) {
      return fail_no_kernel(context, "a range of rows from an input that does not follow the loop");
    }
    begin[static_cast<size_t>(to_view_axis(sweep.axis, x.shape.size()))] = 0;
  }
  const std::array<int32_t, 4> step = to_view_axes(a.step, 1);
  std::copy(begin.begin(), begin.end(), p.begin);
  std::copy(step.begin(), step.end(), p.step);
  p.element_bytes = element_bytes_of(x);
  return make_single_call_kernel(kSlice, p);
}

Result<std::unique_ptr<PreparedKernel>> prepare_transpose(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const ir::Tensor& x = context.graph.input_tensor(node, 0);
  if (context.graph.output_tensor(node, 0).dtype != x.dtype) {
    return fail_no_kernel(context, "an output whose dtype differs from the input's");
  }
  const auto& perm = node.attr<ir::TransposeAttrs>().perm;
  const size_t pad = 4 - perm.size();
  tf_transpose_params p{};
  for (size_t d = 0; d < 4; ++d) {
    p.perm[d] = d < pad ? static_cast<int32_t>(d) : to_view_axis(perm[d - pad], perm.size());
  }
  p.element_bytes = element_bytes_of(x);
  return make_single_call_kernel(kTranspose, p);
}

// The pad element's bytes: the float value, or for a quantized tensor its
// quantized value (the zero point for 0.0), as the reference computes it.
Result<std::vector<uint8_t>> compute_pad_fill(const KernelCallContext& context, const ir::Tensor& y, float value) {
  std::vector<uint8_t> fill(static_cast<size_t>(ir::dtype_size_bytes(y.dtype)), 0);
  if (y.dtype == ir::DType::kF32) {
    std::memcpy(fill.data(), &value, sizeof value);
  } else if (reference::is_int8_like(y.dtype)) {
    TINYFIT_ASSIGN_OR_RETURN(const reference::TensorQuant qy, get_quant(context, y));
    fill[0] = static_cast<uint8_t>(std::clamp(qy.zero_point + reference::round_to_int32(value / qy.scale),
                                              ir::dtype_min(y.dtype), ir::dtype_max(y.dtype)));
  } else if (value != 0.0f) {
    return fail_no_kernel(context, "a non-zero pad value in " + std::string(ir::dtype_name(y.dtype)));
  }
  return fill;
}

Result<std::unique_ptr<PreparedKernel>> prepare_pad(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const ir::Tensor& x = context.graph.input_tensor(node, 0);
  const ir::Tensor& y = context.graph.output_tensor(node, 0);
  if (y.dtype != x.dtype) return fail_no_kernel(context, "an output whose dtype differs from the input's");
  if (ir::dtype_size_bytes(y.dtype) > 4) return fail_no_kernel(context, std::string(ir::dtype_name(y.dtype)));
  const auto& a = node.attr<ir::PadAttrs>();
  TINYFIT_ASSIGN_OR_RETURN(const std::vector<uint8_t> fill, compute_pad_fill(context, y, a.value));
  tf_pad_params p{};
  const std::array<int32_t, 4> before = to_view_axes(a.before, 0);
  std::copy(before.begin(), before.end(), p.before);
  p.element_bytes = element_bytes_of(y);
  std::copy(fill.begin(), fill.end(), p.fill);
  return make_single_call_kernel(kPad, p);
}

Result<std::unique_ptr<PreparedKernel>> prepare_channel_shuffle(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const ir::Tensor& x = context.graph.input_tensor(node, 0);
  if (context.graph.output_tensor(node, 0).dtype != x.dtype) {
    return fail_no_kernel(context, "an output whose dtype differs from the input's");
  }
  const tf_channel_shuffle_params p{static_cast<int32_t>(node.attr<ir::ChannelShuffleAttrs>().groups),
                                    element_bytes_of(x)};
  return make_single_call_kernel(kChannelShuffle, p);
}

}  // namespace

Result<std::unique_ptr<PreparedKernel>> prepare_data_movement_kernel(const KernelCallContext& context) {
  if (context.call.mode == plan::CallMode::kCopy) return prepare_copy(context);
  const ir::OpType op = context.node().op;
  TINYFIT_RETURN_IF_ERROR(check_whole_or_channel_chunk(context));
  TINYFIT_RETURN_IF_ERROR(check_view_ranks(context));
  TINYFIT_RETURN_IF_ERROR(check_inputs_have_views(context));
  switch (op) {
    case ir::OpType::kConcat: return prepare_concat(context);
    case ir::OpType::kSplit: return prepare_split(context);
    case ir::OpType::kSlice: return prepare_slice(context);
    case ir::OpType::kTranspose: return prepare_transpose(context);
    case ir::OpType::kPad: return prepare_pad(context);
    case ir::OpType::kChannelShuffle: return prepare_channel_shuffle(context);
    default: break;
  }
  return fail_no_kernel(context, std::string(ir::op_type_name(op)) + " in the data-movement family");
}

}  // namespace tinyfit::exec
