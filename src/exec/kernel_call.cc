#include "exec/kernel_call.h"

#include <string>

namespace tinyfit::exec {

Status PreparedKernel::emit(CallEmitter& /*emitter*/) const {
  return fail("code generation for kernel '" + std::string(kernel_name()) + "' is not built yet",
              ExitCode::kBadCommandLine);
}

namespace {

// Kernels other than the window *_rows ones ignore views' origins: for a call
// over a range of rows or cols, every activation input must show the range
// the output shows there (the same bounds of the same loop), or broadcast
// along that axis.
Status check_inputs_show_output_rows(const KernelCallContext& context) {
  const plan::View& output = context.call.outputs.at(0);
  for (const plan::Sweep& sweep : output.sweeps) {
    if (output.rank() != 4 || (sweep.axis != 1 && sweep.axis != 2)) continue;
    for (const plan::View& input : context.call.inputs) {
      const int axis = sweep.axis + input.rank() - output.rank();  // broadcasting aligns axes on the right
      if (axis < 0 || input.shape[static_cast<size_t>(axis)] == 1) continue;
      const plan::Sweep* same = input.find_sweep(axis);
      if (same == nullptr || same->loop != sweep.loop || same->first != sweep.first || same->last != sweep.last) {
        return fail_no_kernel(context, "a range of rows from inputs that show other rows");
      }
    }
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<PreparedKernel>> prepare_kernel(const KernelCallContext& context) {
  if (context.call.mode == plan::CallMode::kCopy) return prepare_data_movement_kernel(context);
  if (!context.call.fused.empty()) return prepare_inverted_bottleneck_kernel(context);
  if (context.call.overlap) return prepare_segment_kernel(context);
  const ir::OpType op = context.node().op;
  // A Slice's input view in a row loop is its window (its first row is the
  // one the slice's first output row reads): prepare_slice starts there.
  const bool reads_origins = op == ir::OpType::kConv2D || op == ir::OpType::kDepthwiseConv2D ||
                             op == ir::OpType::kMaxPool || op == ir::OpType::kAveragePool ||
                             op == ir::OpType::kSlice;
  if (!reads_origins && computes_rows_or_cols(context.call)) {
    TINYFIT_RETURN_IF_ERROR(check_inputs_show_output_rows(context));
  }
  switch (op) {
    case ir::OpType::kConv2D:
    case ir::OpType::kDepthwiseConv2D:
    case ir::OpType::kFullyConnected:
      return prepare_conv_kernel(context);
    case ir::OpType::kMaxPool:
    case ir::OpType::kAveragePool:
    case ir::OpType::kMean:
      return prepare_pool_kernel(context);
    case ir::OpType::kAdd:
    case ir::OpType::kSub:
    case ir::OpType::kMul:
    case ir::OpType::kDiv:
    case ir::OpType::kSqrt:
    case ir::OpType::kRsqrt:
    case ir::OpType::kErf:
    case ir::OpType::kGelu:
    case ir::OpType::kClip:
    case ir::OpType::kSigmoid:
    case ir::OpType::kHardSwish:
    case ir::OpType::kQuantize:
    case ir::OpType::kDequantize:
      return prepare_elementwise_kernel(context);
    case ir::OpType::kSoftmax:
    case ir::OpType::kLrn:
      return prepare_normalization_kernel(context);
    case ir::OpType::kConcat:
    case ir::OpType::kSplit:
    case ir::OpType::kSlice:
    case ir::OpType::kTranspose:
    case ir::OpType::kPad:
    case ir::OpType::kChannelShuffle:
      return prepare_data_movement_kernel(context);
    case ir::OpType::kResize:
      return prepare_resize_kernel(context);
    case ir::OpType::kMatMul:
      return prepare_matmul_kernel(context);
    case ir::OpType::kLayerNorm:
      return prepare_layer_norm_kernel(context);
    case ir::OpType::kGather:
      return prepare_gather_kernel(context);
    case ir::OpType::kReshape:
      break;  // an alias: the plan never calls it
  }
  return fail_no_kernel(context, "an alias operator is never called");
}

tf_view make_tf_view(const plan::ViewInstance& view, uint8_t* buffer_base, ir::DType dtype) {
  TINYFIT_CHECK(view.rank() <= 4) << "view of rank " << view.rank();
  tf_view result{};
  result.data = buffer_base + view.offset_elements * ir::dtype_size_bytes(dtype);
  const int pad = 4 - view.rank();
  for (int a = 0; a < 4; ++a) {
    const bool padded = a < pad;
    result.shape[a] = padded ? 1 : static_cast<int32_t>(view.shape[static_cast<size_t>(a - pad)]);
    result.strides[a] = padded ? 0 : static_cast<int32_t>(view.strides[static_cast<size_t>(a - pad)]);
    result.origin[a] = padded ? 0 : static_cast<int32_t>(view.origin[static_cast<size_t>(a - pad)]);
  }
  return result;
}

bool serves_output_rows(const ir::Node& node) {
  switch (node.op) {
    case ir::OpType::kConv2D:
    case ir::OpType::kDepthwiseConv2D:
    case ir::OpType::kMaxPool:
    case ir::OpType::kAveragePool:
    case ir::OpType::kAdd:
    case ir::OpType::kSub:
    case ir::OpType::kMul:
    case ir::OpType::kDiv:
    case ir::OpType::kSqrt:
    case ir::OpType::kRsqrt:
    case ir::OpType::kErf:
    case ir::OpType::kGelu:
    case ir::OpType::kClip:
    case ir::OpType::kSigmoid:
    case ir::OpType::kHardSwish:
    case ir::OpType::kQuantize:
    case ir::OpType::kDequantize:
    case ir::OpType::kConcat:
    case ir::OpType::kSlice:
      return true;
    default:
      return false;
  }
}

bool serves_output_tokens(const ir::Node& node) {
  switch (node.op) {
    case ir::OpType::kFullyConnected:
    case ir::OpType::kMatMul:
    case ir::OpType::kSoftmax:
    case ir::OpType::kLayerNorm:
    case ir::OpType::kTranspose:
      return true;
    default:
      return serves_output_rows(node);
  }
}

bool computes_rows_or_cols(const plan::KernelCall& call) {
  if (call.outputs.empty() || call.outputs[0].rank() != 4) return false;
  return call.outputs[0].find_sweep(1) != nullptr || call.outputs[0].find_sweep(2) != nullptr;
}

tl::unexpected<Diag> fail_no_kernel(const KernelCallContext& context, std::string_view what) {
  // A kernel not built yet: exit 2 ("not built yet", never a fake result).
  Diag diag;
  diag.code = ExitCode::kBadCommandLine;
  if (context.call.node >= 0) {
    diag.node = context.node().name;
    diag.op = std::string(ir::op_type_name(context.node().op));
  }
  diag.message = "no runtime kernel for " + std::string(what) + " (" +
                 std::string(plan::call_mode_name(context.call.mode)) + " mode)";
  return tl::unexpected<Diag>(std::move(diag));
}

}  // namespace tinyfit::exec
