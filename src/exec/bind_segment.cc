// Segment-kernel bindings (runtime/include/tinyfit/segment.h):
//  - a call that declares an overlap (plan::DeclaredOverlap) runs its node's
//    overlap-tolerant kernel in the declared traversal: Conv2D (groups 1),
//    FullyConnected, DepthwiseConv2D (multiplier 1), in qs8, qu8 and f32;
//  - a fused call (plan::KernelCall::fused) runs the fused inverted
//    bottleneck, qs8 or qu8, whether or not it declares an overlap.
// Quantized calls run the __dsp fast path (16-bit SIMD, the same access
// order, so the same distance) where it serves the node: int8 weights
// symmetric and requantisation within tinyfit/requantize.h's range
// (exec/conv_primitive.h's conditions for the __dsp kernels); a fused call
// runs it when it serves all three stages (one kernel, one cost-table row:
// a mix of fast and portable stages would cost what neither row predicts),
// the portable fused kernel otherwise.
// The constants are the direct kernels' (bind_conv_params.h, TFLite's ADD
// parameters for the residual), so the results are bit for bit theirs.
#include <array>
#include <optional>

#include "exec/bind_conv_params.h"
#include "exec/quantized_add_params.h"
#include "plan/segment_call.h"
#include "plan/segment_closed_form.h"
#include "tinyfit/kernel_templates/segment_order.h"
#include "tinyfit/segment.h"

namespace tinyfit::exec {

// The compiler's model of the kernels (plan/segment_call.h) and the kernels.
static_assert(plan::kSegmentConvBlock == TF_SEGMENT_CONV_BLOCK);
static_assert(plan::kSegmentConvBlock == TF_SEGMENT_MID_BLOCK);
static_assert(plan::kSegmentDepthwiseBlock == TF_SEGMENT_DWCONV_BLOCK);
static_assert(plan::kSegmentMaxTaps == TF_SEGMENT_MAX_TAPS);

namespace {

constexpr const char* kHeader = "tinyfit/segment.h";

using SegmentFunction = void (*)(const tf_view*, const tf_view*, const tf_conv_params*, int32_t);
using FusedFunction = void (*)(const tf_view*, const tf_view*, const tf_inverted_bottleneck_params*, uint8_t*,
                               int32_t);

// The kernels of one dtype token, by operator.
struct SegmentKernels {
  SegmentFunction conv2d, fully_connected, dwconv2d;
  FusedFunction inverted_bottleneck;  // nullptr for f32
};

// The __dsp fast paths of one dtype token (qs8, qu8).
struct SegmentDspKernels {
  SegmentFunction conv2d, fully_connected, dwconv2d;
  FusedFunction inverted_bottleneck;
};

const SegmentKernels& segment_kernels_of(const std::string& dtype) {
  static const SegmentKernels kQs8{tf_qs8_conv2d_segment, tf_qs8_fully_connected_segment, tf_qs8_dwconv2d_segment,
                                   tf_qs8_inverted_bottleneck_segment};
  static const SegmentKernels kQu8{tf_qu8_conv2d_segment, tf_qu8_fully_connected_segment, tf_qu8_dwconv2d_segment,
                                   tf_qu8_inverted_bottleneck_segment};
  static const SegmentKernels kF32{tf_f32_conv2d_segment, tf_f32_fully_connected_segment, tf_f32_dwconv2d_segment,
                                   nullptr};
  return dtype == "qs8" ? kQs8 : dtype == "qu8" ? kQu8 : kF32;
}

const SegmentDspKernels& segment_dsp_kernels_of(const std::string& dtype) {
  static const SegmentDspKernels kQs8{tf_qs8_conv2d_segment__dsp, tf_qs8_fully_connected_segment__dsp,
                                      tf_qs8_dwconv2d_segment__dsp, tf_qs8_inverted_bottleneck_segment__dsp};
  static const SegmentDspKernels kQu8{tf_qu8_conv2d_segment__dsp, tf_qu8_fully_connected_segment__dsp,
                                      tf_qu8_dwconv2d_segment__dsp, tf_qu8_inverted_bottleneck_segment__dsp};
  return dtype == "qs8" ? kQs8 : kQu8;
}

// Whether a __dsp kernel computes a node with these constants: quantized,
// int8 weights symmetric (they widen without an offset), requantisation in
// range (exec/conv_primitive.h's serves()).
bool dsp_serves(const ConvConstants& constants) {
  return !constants.is_float() && constants.requantize_fits() &&
         (constants.dtype_token() == "qu8" || constants.params().weight_offset == 0);
}

// Whether the fused __dsp kernel computes every mid of the expand in its
// groups (inverted_bottleneck_segment_dsp.h's ib_dsp_expand_kind), the paths
// that take channel-pair weights and read folded requantisation records: a
// stem convolution's gathered windows, or a 1x1 expand without padding (one
// input pixel a mid).
bool expands_in_groups(const plan::SegmentKernel& record) {
  const int64_t group = plan::count_expand_group_mids(record);
  return group == 2 ||
         (group == 3 && record.expand_row_window.pad_before == 0 && record.expand_col_window.pad_before == 0);
}

int32_t descending_of(const plan::KernelCall& call) {
  return call.overlap && call.overlap->traversal == plan::Traversal::kDescending ? 1 : 0;
}

class PreparedSegmentKernel final : public PreparedKernel {
 public:
  PreparedSegmentKernel(std::unique_ptr<ConvConstants> constants, std::string name, SegmentFunction function,
                        int32_t descending)
      : constants_(std::move(constants)), name_(std::move(name)), function_(function), descending_(descending) {}

  std::string_view kernel_name() const override { return name_; }
  void run(const KernelViews& views) const override {
    function_(&views.inputs[0], &views.outputs[0], &constants_->params(), descending_);
  }
  Status emit(CallEmitter& emitter) const override {
    const std::string params = constants_->emit(emitter);
    emitter.call(kHeader, name_,
                 {emitter.input_view(0), emitter.output_view(0), "&" + params, std::to_string(descending_)});
    return {};
  }

 private:
  std::unique_ptr<ConvConstants> constants_;
  std::string name_;
  SegmentFunction function_;
  int32_t descending_;
};

class PreparedInvertedBottleneck final : public PreparedKernel {
 public:
  std::string name;
  FusedFunction function = nullptr;
  std::unique_ptr<ConvConstants> expand, depthwise, project;
  std::optional<tf_quantized_add_params> add;
  tf_inverted_bottleneck_params params{};
  int32_t descending = 0;
  std::string hint;

  std::string_view kernel_name() const override { return name; }
  void run(const KernelViews& views) const override {
    function(&views.inputs[0], &views.outputs[0], &params, views.workspace, descending);
  }
  Status emit(CallEmitter& emitter) const override {
    const std::string add_struct =
        add ? "&" + emitter.define_struct("tf_quantized_add_params", hint + "_add", describe_quantized_add_params(*add))
            : std::string("(const tf_quantized_add_params*)0");
    const std::string fused = emitter.define_struct(
        "tf_inverted_bottleneck_params", hint,
        {{"expand", "&" + expand->emit(emitter)},
         {"depthwise", "&" + depthwise->emit(emitter)},
         {"project", "&" + project->emit(emitter)},
         {"add", add_struct},
         {"mid_rows", std::to_string(params.mid_rows)},
         {"mid_cols", std::to_string(params.mid_cols)},
         {"ring_pixels", std::to_string(params.ring_pixels)}});
    emitter.call(kHeader, name,
                 {emitter.input_view(0), emitter.output_view(0), "&" + fused, emitter.workspace(),
                  std::to_string(descending)});
    return {};
  }
};

// The conv constants of node `id`, prepared as if a call computed it alone.
Result<std::unique_ptr<ConvConstants>> prepare_node_constants(const KernelCallContext& context, ir::NodeId id) {
  plan::KernelCall single = context.call;
  single.node = id;
  single.fused.clear();
  return ConvConstants::prepare(KernelCallContext{context.graph, context.plan, single});
}

}  // namespace

Result<std::unique_ptr<PreparedKernel>> prepare_segment_kernel(const KernelCallContext& context) {
  const plan::KernelCall& call = context.call;
  if (call.inputs.size() != 1 || call.outputs.size() != 1) return fail_no_kernel(context, "these views");
  const plan::Traversal traversal = call.overlap ? call.overlap->traversal : plan::Traversal::kAscending;
  TINYFIT_RETURN_IF_ERROR(plan::describe_segment_call(context.graph, call, traversal));
  TINYFIT_ASSIGN_OR_RETURN(std::unique_ptr<ConvConstants> constants, ConvConstants::prepare(context));
  const SegmentKernels& kernels = segment_kernels_of(constants->dtype_token());
  const ir::OpType op = context.node().op;
  const std::string prefix = "tf_" + constants->dtype_token() + "_";
  if (dsp_serves(*constants)) {
    const SegmentDspKernels& dsp = segment_dsp_kernels_of(constants->dtype_token());
    if (op == ir::OpType::kDepthwiseConv2D) {
      // int16 lanes, plain requantisation records
      constants->pack_for(ConvPrimitive::kDepthwiseDsp, false, RequantRecords::kPlain);
      return std::make_unique<PreparedSegmentKernel>(std::move(constants), prefix + "dwconv2d_segment__dsp",
                                                     dsp.dwconv2d, descending_of(call));
    }
    // IR-layout weights and per-channel requantisation records (pointwise: no re-lay).
    constants->pack_for(ConvPrimitive::kPointwiseDsp, false, RequantRecords::kPlain);
    const bool fc = op == ir::OpType::kFullyConnected;
    return std::make_unique<PreparedSegmentKernel>(
        std::move(constants), prefix + (fc ? "fully_connected_segment__dsp" : "conv2d_segment__dsp"),
        fc ? dsp.fully_connected : dsp.conv2d, descending_of(call));
  }
  if (op == ir::OpType::kDepthwiseConv2D) {
    return std::make_unique<PreparedSegmentKernel>(std::move(constants), prefix + "dwconv2d_segment", kernels.dwconv2d,
                                                   descending_of(call));
  }
  if (op == ir::OpType::kFullyConnected) {
    return std::make_unique<PreparedSegmentKernel>(std::move(constants), prefix + "fully_connected_segment",
                                                   kernels.fully_connected, descending_of(call));
  }
  return std::make_unique<PreparedSegmentKernel>(std::move(constants), prefix + "conv2d_segment", kernels.conv2d,
                                                 descending_of(call));
}

Result<std::unique_ptr<PreparedKernel>> prepare_inverted_bottleneck_kernel(const KernelCallContext& context) {
  const plan::KernelCall& call = context.call;
  if (call.inputs.size() != 1 || call.outputs.size() != 1) return fail_no_kernel(context, "these views");
  const plan::Traversal traversal = call.overlap ? call.overlap->traversal : plan::Traversal::kAscending;
  TINYFIT_ASSIGN_OR_RETURN(const plan::SegmentKernel record,
                           plan::describe_segment_call(context.graph, call, traversal));
  auto kernel = std::make_unique<PreparedInvertedBottleneck>();
  TINYFIT_ASSIGN_OR_RETURN(kernel->expand, ConvConstants::prepare(context));
  TINYFIT_ASSIGN_OR_RETURN(kernel->depthwise, prepare_node_constants(context, call.fused[0]));
  TINYFIT_ASSIGN_OR_RETURN(kernel->project, prepare_node_constants(context, call.fused[1]));
  const std::string& dtype = kernel->expand->dtype_token();
  if (dtype == "f32" || kernel->depthwise->dtype_token() != dtype || kernel->project->dtype_token() != dtype) {
    return fail_no_kernel(context, "a fused inverted bottleneck in " + dtype);
  }
  if (call.fused.size() == 3) {
    plan::KernelCall single = call;
    single.node = call.fused[2];
    const KernelCallContext add_context{context.graph, context.plan, single};
    TINYFIT_ASSIGN_OR_RETURN(const tf_quantized_add_params add, prepare_quantized_add_params(add_context));
    // The kernel adds a = the block input, b = the projection.
    const ir::Node& add_node = add_context.node();
    const bool input_first = add_node.inputs[0] == context.node().inputs[0];
    kernel->add = input_first ? add : swap_add_operands(add);
  }
  const int64_t ring = plan::compute_segment_ring_pixels(record);
  const int64_t needed_bytes = plan::compute_inverted_bottleneck_workspace_bytes(record);
  const int64_t workspace_bytes =
      call.workspace < 0 ? 0 : context.plan.buffers.at(static_cast<size_t>(call.workspace)).bytes;
  if (workspace_bytes < needed_bytes) {
    return fail_no_kernel(context, "a fused inverted bottleneck with " + std::to_string(workspace_bytes) +
                                       " bytes of workspace (it needs " + std::to_string(needed_bytes) + ")");
  }
  // The __dsp kernel when its arithmetic serves every stage, with their
  // __dsp constants.
  if (dsp_serves(*kernel->expand) && dsp_serves(*kernel->depthwise) && dsp_serves(*kernel->project)) {
    // The pointwise stages' weights in the im2col GEMM's channel pairs and
    // folded requantisation records where every channel of a stage folds,
    // except for an expand that is not always computed in groups (the
    // segment conv kernel's paths take the IR layout and plain records).
    if (expands_in_groups(record)) {
      kernel->expand->pack_for(ConvPrimitive::kIm2colDsp, false, RequantRecords::kFoldedWhenAllFold);
    } else {
      kernel->expand->pack_for(ConvPrimitive::kPointwiseDsp, false, RequantRecords::kPlain);
    }
    kernel->depthwise->pack_for(ConvPrimitive::kDepthwiseDsp, false, RequantRecords::kFoldedWhenAllFold);
    kernel->project->pack_for(ConvPrimitive::kIm2colDsp, false, RequantRecords::kFoldedWhenAllFold);
    kernel->name = "tf_" + dtype + "_inverted_bottleneck_segment__dsp";
    kernel->function = segment_dsp_kernels_of(dtype).inverted_bottleneck;
  } else {
    kernel->name = "tf_" + dtype + "_inverted_bottleneck_segment";
    kernel->function = segment_kernels_of(dtype).inverted_bottleneck;
  }
  kernel->params.expand = &kernel->expand->params();
  kernel->params.depthwise = &kernel->depthwise->params();
  kernel->params.project = &kernel->project->params();
  kernel->params.add = kernel->add ? &*kernel->add : nullptr;
  kernel->params.mid_rows = static_cast<int32_t>(record.mid_rows);
  kernel->params.mid_cols = static_cast<int32_t>(record.mid_cols);
  kernel->params.ring_pixels = static_cast<int32_t>(ring);
  kernel->descending = descending_of(call);
  kernel->hint = context.node().name + "_fused";
  return kernel;
}

}  // namespace tinyfit::exec
