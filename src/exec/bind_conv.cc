// Conv-family bindings: Conv2D, DepthwiseConv2D and FullyConnected calls to
// the runtime kernels of tinyfit/conv.h, in every mode the operator's kind
// allows (plan.h CallMode):
//   Conv2D (groups == 1), FullyConnected: whole, chunk (output channels),
//     accumulate (input channels into an accumulator), finalize;
//   grouped Conv2D: whole;
//   DepthwiseConv2D: whole (also in place over its input through a line
//     buffer), chunk;
//   Conv2D and DepthwiseConv2D: a part of the output's rows (and cols), whole
//     or by channel chunk, when the output view sweeps rows or cols (a row
//     loop): the *_rows kernels, which take every range from the views'
//     origins, so the input may be a window of rows (plan.h Sweep).
// Each call runs the primitive exec/conv_primitive.h's rule picks (the
// direct loops, a __dsp kernel or a float32 fast primitive); the arguments depend only on the call's
// kind, so every primitive of a kind shares them. The scalar arguments are
// constants or the loop's chunk bounds, so run() evaluates them and emit()
// spells the same values in C.
#include <array>
#include <variant>

#include "analysis/inplace_rule.h"
#include "exec/bind_conv_params.h"
#include "plan/plan_walk.h"

namespace tinyfit::exec {
namespace {

// One int32 argument: a constant, or the iteration's chunk begin / end or
// first-iteration flag.
struct ScalarArg {
  enum class Source { kConstant, kChunkBegin, kChunkEnd, kFirstIteration };
  Source source = Source::kConstant;
  int64_t constant = 0;

  static ScalarArg fixed(int64_t value) { return {Source::kConstant, value}; }

  int32_t evaluate(const KernelViews& views) const {
    switch (source) {
      case Source::kConstant: break;
      case Source::kChunkBegin: return static_cast<int32_t>(views.chunk.begin);
      case Source::kChunkEnd: return static_cast<int32_t>(views.chunk.end);
      case Source::kFirstIteration: return views.first_iteration ? 1 : 0;
    }
    return static_cast<int32_t>(constant);
  }

  std::string spell(const CallEmitter& emitter) const {
    switch (source) {
      case Source::kConstant: break;
      case Source::kChunkBegin: return emitter.chunk_begin();
      case Source::kChunkEnd: return emitter.chunk_end();
      case Source::kFirstIteration: return emitter.first_iteration();
    }
    return std::to_string(constant);
  }
};

using Kernel0 = void (*)(const tf_view*, const tf_view*, const tf_conv_params*);
using Kernel1 = void (*)(const tf_view*, const tf_view*, const tf_conv_params*, int32_t);
using Kernel2 = void (*)(const tf_view*, const tf_view*, const tf_conv_params*, int32_t, int32_t);
using Kernel3 = void (*)(const tf_view*, const tf_view*, const tf_conv_params*, int32_t, int32_t, int32_t);
// Kernels with a workspace (im2col columns, an in-place line buffer), then the same int32s.
using KernelW0 = void (*)(const tf_view*, const tf_view*, const tf_conv_params*, uint8_t*);
using KernelW1 = void (*)(const tf_view*, const tf_view*, const tf_conv_params*, uint8_t*, int32_t);
using KernelW2 = void (*)(const tf_view*, const tf_view*, const tf_conv_params*, uint8_t*, int32_t, int32_t);
using KernelW3 = void (*)(const tf_view*, const tf_view*, const tf_conv_params*, uint8_t*, int32_t, int32_t,
                          int32_t);
using KernelFunction = std::variant<Kernel0, Kernel1, Kernel2, Kernel3, KernelW0, KernelW1, KernelW2, KernelW3>;

// What a call computes, which fixes its arguments (conv.h):
enum class CallKind {
  kChannels,           // Conv2D / FullyConnected output channels: (out_begin, out_end)
  kDepthwiseChannels,  // (out_begin, out_end, in_begin)
  kRows,               // a part of the output's rows / cols: () (the views' origins)
  kInPlace,            // depthwise over its input: (line_rows), the workspace holds the line buffer
  kAccumulate,         // (in_begin, accumulator_bits, first_iteration)
  kFinalize,           // (accumulator_bits)
};

// Whether the kernels of `kind` read the weights: a finalize reads only the
// accumulator, bias, requantisation and clamp (tinyfit/conv.h).
bool reads_weights(CallKind kind) { return kind != CallKind::kFinalize; }

// One runtime kernel: the function for a dtype, primitive, operator and kind.
struct KernelRow {
  std::string_view dtype;
  ConvPrimitive primitive;
  ir::OpType op;
  CallKind kind;
  std::string_view name;
  KernelFunction function;
};

#define TINYFIT_DIRECT_KERNELS(T)                                                                           \
  {#T, P::kDirect, Op::kConv2D, K::kChannels, "tf_" #T "_conv2d_direct", tf_##T##_conv2d_direct},            \
      {#T, P::kDirect, Op::kConv2D, K::kRows, "tf_" #T "_conv2d_direct_rows", tf_##T##_conv2d_direct_rows},  \
      {#T, P::kDirect, Op::kConv2D, K::kAccumulate, "tf_" #T "_conv2d_direct_accumulate",                    \
       tf_##T##_conv2d_direct_accumulate},                                                                   \
      {#T, P::kDirect, Op::kConv2D, K::kFinalize, "tf_" #T "_conv_finalize", tf_##T##_conv_finalize},       \
      {#T, P::kDirect, Op::kFullyConnected, K::kChannels, "tf_" #T "_fully_connected_direct",                \
       tf_##T##_fully_connected_direct},                                                                     \
      {#T, P::kDirect, Op::kFullyConnected, K::kAccumulate, "tf_" #T "_fully_connected_direct_accumulate",   \
       tf_##T##_fully_connected_direct_accumulate},                                                          \
      {#T, P::kDirect, Op::kFullyConnected, K::kFinalize, "tf_" #T "_conv_finalize", tf_##T##_conv_finalize}, \
      {#T, P::kDirect, Op::kDepthwiseConv2D, K::kDepthwiseChannels, "tf_" #T "_dwconv2d_direct",             \
       tf_##T##_dwconv2d_direct},                                                                            \
      {#T, P::kDirect, Op::kDepthwiseConv2D, K::kRows, "tf_" #T "_dwconv2d_direct_rows",                     \
       tf_##T##_dwconv2d_direct_rows},                                                                       \
      {#T, P::kDirect, Op::kDepthwiseConv2D, K::kInPlace, "tf_" #T "_dwconv2d_direct_inplace",               \
       tf_##T##_dwconv2d_direct_inplace}

#define TINYFIT_DSP_KERNELS(T)                                                                              \
  {#T, P::kDepthwiseDsp, Op::kDepthwiseConv2D, K::kDepthwiseChannels, "tf_" #T "_dwconv2d_direct__dsp",      \
   tf_##T##_dwconv2d_direct__dsp},                                                                           \
      {#T, P::kDepthwiseChannelDsp, Op::kDepthwiseConv2D, K::kDepthwiseChannels, "tf_" #T "_dwconv2d_channel__dsp", \
       tf_##T##_dwconv2d_channel__dsp},                                                                      \
      {#T, P::kDepthwiseDsp, Op::kDepthwiseConv2D, K::kRows, "tf_" #T "_dwconv2d_direct_rows__dsp",          \
       tf_##T##_dwconv2d_direct_rows__dsp},                                                                  \
      {#T, P::kDepthwiseDsp, Op::kDepthwiseConv2D, K::kInPlace, "tf_" #T "_dwconv2d_direct_inplace__dsp",    \
       tf_##T##_dwconv2d_direct_inplace__dsp},                                                               \
      {#T, P::kDepthwisePlanarDsp, Op::kDepthwiseConv2D, K::kDepthwiseChannels,                              \
       "tf_" #T "_dwconv2d_planar__dsp", tf_##T##_dwconv2d_planar__dsp},                                     \
      {#T, P::kIm2colDsp, Op::kConv2D, K::kChannels, "tf_" #T "_conv2d_im2col__dsp",                         \
       tf_##T##_conv2d_im2col__dsp},                                                                         \
      {#T, P::kIm2colDsp, Op::kConv2D, K::kRows, "tf_" #T "_conv2d_im2col_rows__dsp",                        \
       tf_##T##_conv2d_im2col_rows__dsp},                                                                    \
      {#T, P::kIm2colWideDsp, Op::kConv2D, K::kChannels, "tf_" #T "_conv2d_im2col_wide__dsp",                \
       tf_##T##_conv2d_im2col_wide__dsp},                                                                    \
      {#T, P::kIm2colWideDsp, Op::kConv2D, K::kRows, "tf_" #T "_conv2d_im2col_wide_rows__dsp",               \
       tf_##T##_conv2d_im2col_wide_rows__dsp},                                                               \
      {#T, P::kIm2colDsp, Op::kConv2D, K::kAccumulate, "tf_" #T "_conv2d_im2col_accumulate__dsp",            \
       tf_##T##_conv2d_im2col_accumulate__dsp},                                                              \
      {#T, P::kWindowDsp, Op::kConv2D, K::kChannels, "tf_" #T "_conv2d_window__dsp",                         \
       tf_##T##_conv2d_window__dsp},                                                                         \
      {#T, P::kPointwiseDsp, Op::kConv2D, K::kChannels, "tf_" #T "_conv2d_1x1__dsp", tf_##T##_conv2d_1x1__dsp}, \
      {#T, P::kPointwiseDsp, Op::kConv2D, K::kRows, "tf_" #T "_conv2d_1x1_rows__dsp",                        \
       tf_##T##_conv2d_1x1_rows__dsp},                                                                       \
      {#T, P::kPointwiseDsp, Op::kConv2D, K::kAccumulate, "tf_" #T "_conv2d_1x1_accumulate__dsp",            \
       tf_##T##_conv2d_1x1_accumulate__dsp},                                                                 \
      {#T, P::kFullyConnectedDsp, Op::kFullyConnected, K::kChannels, "tf_" #T "_fully_connected_direct__dsp", \
       tf_##T##_fully_connected_direct__dsp},                                                                \
      {#T, P::kFullyConnectedDsp, Op::kFullyConnected, K::kAccumulate,                                       \
       "tf_" #T "_fully_connected_direct_accumulate__dsp", tf_##T##_fully_connected_direct_accumulate__dsp}

#define TINYFIT_FLOAT_KERNELS                                                                                \
  {"f32", P::kIm2colFloat, Op::kConv2D, K::kChannels, "tf_f32_conv2d_im2col", tf_f32_conv2d_im2col},             \
      {"f32", P::kIm2colFloat, Op::kConv2D, K::kRows, "tf_f32_conv2d_im2col_rows", tf_f32_conv2d_im2col_rows},   \
      {"f32", P::kWinogradFloat, Op::kConv2D, K::kChannels, "tf_f32_conv2d_winograd", tf_f32_conv2d_winograd},   \
      {"f32", P::kWinogradFloat, Op::kConv2D, K::kRows, "tf_f32_conv2d_winograd_rows", tf_f32_conv2d_winograd_rows}

const KernelRow* find_kernel(std::string_view dtype, ConvPrimitive primitive, ir::OpType op, CallKind kind) {
  using P = ConvPrimitive;
  using Op = ir::OpType;
  using K = CallKind;
  static const KernelRow kRows[] = {TINYFIT_DIRECT_KERNELS(qs8), TINYFIT_DIRECT_KERNELS(qu8),
                                    TINYFIT_DIRECT_KERNELS(f32), TINYFIT_DSP_KERNELS(qs8),
                                    TINYFIT_DSP_KERNELS(qu8),    TINYFIT_FLOAT_KERNELS};
  for (const KernelRow& row : kRows) {
    if (row.dtype == dtype && row.primitive == primitive && row.op == op && row.kind == kind) return &row;
  }
  return nullptr;
}
#undef TINYFIT_DIRECT_KERNELS
#undef TINYFIT_DSP_KERNELS
#undef TINYFIT_FLOAT_KERNELS

class ConvKernel final : public PreparedKernel {
 public:
  ConvKernel(std::unique_ptr<ConvConstants> constants, std::string name, KernelFunction function,
             size_t input_index, std::vector<ScalarArg> args)
      : constants_(std::move(constants)),
        name_(std::move(name)),
        function_(function),
        input_index_(input_index),
        args_(std::move(args)) {}

  std::string_view kernel_name() const override { return name_; }

  void run(const KernelViews& views) const override {
    const tf_view* in = &views.inputs[input_index_];
    const tf_view* out = &views.outputs[0];
    const tf_conv_params* p = &constants_->params();
    std::array<int32_t, 3> a{};
    for (size_t i = 0; i < args_.size(); ++i) a[i] = args_[i].evaluate(views);
    uint8_t* ws = views.workspace;
    if (auto* f0 = std::get_if<Kernel0>(&function_)) (*f0)(in, out, p);
    if (auto* f1 = std::get_if<Kernel1>(&function_)) (*f1)(in, out, p, a[0]);
    if (auto* f2 = std::get_if<Kernel2>(&function_)) (*f2)(in, out, p, a[0], a[1]);
    if (auto* f3 = std::get_if<Kernel3>(&function_)) (*f3)(in, out, p, a[0], a[1], a[2]);
    if (auto* w0 = std::get_if<KernelW0>(&function_)) (*w0)(in, out, p, ws);
    if (auto* w1 = std::get_if<KernelW1>(&function_)) (*w1)(in, out, p, ws, a[0]);
    if (auto* w2 = std::get_if<KernelW2>(&function_)) (*w2)(in, out, p, ws, a[0], a[1]);
    if (auto* w3 = std::get_if<KernelW3>(&function_)) (*w3)(in, out, p, ws, a[0], a[1], a[2]);
  }

  Status emit(CallEmitter& emitter) const override {
    const std::string params = constants_->emit(emitter);
    std::vector<std::string> arguments{emitter.input_view(input_index_),
                                       emitter.output_view(0), "&" + params};
    if (std::holds_alternative<KernelW0>(function_) || std::holds_alternative<KernelW1>(function_) ||
        std::holds_alternative<KernelW2>(function_) || std::holds_alternative<KernelW3>(function_)) {
      arguments.push_back(emitter.workspace());
    }
    for (const ScalarArg& arg : args_) arguments.push_back(arg.spell(emitter));
    emitter.call("tinyfit/conv.h", name_, arguments);
    return {};
  }

 private:
  std::unique_ptr<ConvConstants> constants_;
  std::string name_;
  KernelFunction function_;
  size_t input_index_;  // the view the kernel reads: the accumulator (last) for finalize
  std::vector<ScalarArg> args_;
};

ScalarArg chunk_arg(ScalarArg::Source source) { return {source, 0}; }

// DepthwiseConv2D chunk: the innermost channel loop runs over the node's
// output channels; the input view either follows the chunk (multiplier 1: a
// partial buffer or a channel slice, channel 0 = input channel `begin`) or is
// the whole input. With a multiplier, a chunk of input channels yields
// multiplier times as many output channels, which a view that follows the
// loop's chunk cannot hold.
Result<std::vector<ScalarArg>> depthwise_chunk_args(const KernelCallContext& context, const tf_conv_params& p) {
  const std::vector<const plan::Loop*> nest = plan::find_loop_nest(context.plan, context.call);
  const plan::Loop* loop = nullptr;
  for (const plan::Loop* candidate : nest) {
    if (candidate->axis == plan::LoopAxis::kChannels) loop = candidate;
  }
  if (loop == nullptr || context.call.inputs.size() != 1) return fail_no_kernel(context, "a chunk outside a loop");
  const plan::View& input = context.call.inputs[0];
  const bool input_follows_chunk = input.find_sweep(input.rank() - 1) != nullptr;
  if (loop->extent != p.out_channels || (input_follows_chunk && p.depth_multiplier != 1)) {
    return fail_no_kernel(context, "a loop of " + std::to_string(loop->extent) + " channels over " +
                                       std::to_string(p.in_channels) + " input and " +
                                       std::to_string(p.out_channels) + " output channels" +
                                       (input_follows_chunk ? " with a chunked input" : ""));
  }
  using S = ScalarArg::Source;
  return std::vector<ScalarArg>{chunk_arg(S::kChunkBegin), chunk_arg(S::kChunkEnd),
                                input_follows_chunk ? chunk_arg(S::kChunkBegin) : ScalarArg::fixed(0)};
}

// A part of the output's rows or cols (plan.h: the output view sweeps them):
// the *_rows kernels read every range from the views' origins. They need one
// input view apart from the output (not in place), and Conv2D reads all of
// its input's channels.
Status check_row_call(const KernelCallContext& context, bool depthwise) {
  const plan::KernelCall& call = context.call;
  if (call.inputs.size() != 1 || call.inputs[0].buffer == call.outputs[0].buffer ||
      (!depthwise && call.inputs[0].find_sweep(call.inputs[0].rank() - 1) != nullptr)) {
    return fail_no_kernel(context, std::string("rows of a ") + (depthwise ? "depthwise " : "") +
                                       "convolution in place or from a chunk of input channels");
  }
  return {};
}

// Depthwise written over its own input (analysis/inplace.h): batch 1,
// multiplier 1, and a workspace holding the line buffer's rows.
Result<int64_t> count_line_buffer_rows(const KernelCallContext& context, const tf_conv_params& p) {
  const ir::Shape& x = context.graph.input_tensor(context.node(), 0).shape;
  const ir::Shape& y = context.graph.output_tensor(context.node(), 0).shape;
  const int64_t rows = analysis::compute_line_buffer_rows(
      x[1], x[2], y[1], y[2], ir::Window{p.kernel_h, p.stride_h, p.dilation_h, p.pad_top});
  const int64_t element_bytes = ir::dtype_size_bytes(context.graph.output_tensor(context.node(), 0).dtype);
  const int64_t workspace_bytes =
      context.call.workspace < 0 ? 0 : context.plan.buffers.at(static_cast<size_t>(context.call.workspace)).bytes;
  if (x[0] != 1 || p.depth_multiplier != 1 || rows < 1 || workspace_bytes < rows * y[2] * y[3] * element_bytes) {
    return fail_no_kernel(context, "an in-place depthwise convolution without its line buffer (" +
                                       std::to_string(workspace_bytes) + " bytes of workspace)");
  }
  return rows;
}

// The accumulator's element type must match the call's bits: int32, int16 or
// int8 for quantized models; float models always accumulate in float (the
// plan's bits are then ignored, as plan/lower_pex_schedule.cc types them).
Status check_accumulator(const KernelCallContext& context, const plan::View& accumulator, bool is_float) {
  const int bits = context.call.accumulator_bits;
  const ir::DType dtype = context.plan.buffers.at(static_cast<size_t>(accumulator.buffer)).dtype;
  const bool ok = is_float ? dtype == ir::DType::kF32
                           : (bits == 32 || bits == 16 || bits == 8) && ir::dtype_size_bytes(dtype) * 8 == bits;
  if (!ok) {
    return fail_no_kernel(context, std::to_string(bits) + "-bit accumulators in a " +
                                       std::string(ir::dtype_name(dtype)) + " buffer");
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<PreparedKernel>> prepare_conv_kernel(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const plan::KernelCall& call = context.call;
  if (call.inputs.empty() || call.outputs.size() != 1) return fail_no_kernel(context, "these views");
  TINYFIT_ASSIGN_OR_RETURN(std::unique_ptr<ConvConstants> constants, ConvConstants::prepare(context));
  const tf_conv_params& p = constants->params();
  const bool fc = node.op == ir::OpType::kFullyConnected;
  const bool depthwise = node.op == ir::OpType::kDepthwiseConv2D;
  using S = ScalarArg::Source;
  const ScalarArg bits = ScalarArg::fixed(call.accumulator_bits);

  // The call's kind and arguments, the same for every primitive.
  CallKind kind = CallKind::kChannels;
  std::vector<ScalarArg> args;
  size_t input_index = 0;
  switch (call.mode) {
    case plan::CallMode::kWhole:
    case plan::CallMode::kChunk: {
      const bool whole = call.mode == plan::CallMode::kWhole;
      if (!fc && computes_rows_or_cols(call)) {
        TINYFIT_RETURN_IF_ERROR(check_row_call(context, depthwise));
        kind = CallKind::kRows;
        break;
      }
      if (depthwise) {
        kind = CallKind::kDepthwiseChannels;
        if (whole && call.inputs[0].buffer == call.outputs[0].buffer) {
          TINYFIT_ASSIGN_OR_RETURN(int64_t line_rows, count_line_buffer_rows(context, p));
          kind = CallKind::kInPlace;
          args = {ScalarArg::fixed(line_rows)};
        } else if (whole) {
          args = {ScalarArg::fixed(0), ScalarArg::fixed(p.out_channels), ScalarArg::fixed(0)};
        } else {
          TINYFIT_ASSIGN_OR_RETURN(args, depthwise_chunk_args(context, p));
        }
        break;
      }
      if (!whole && p.groups > 1) return fail_no_kernel(context, "a grouped convolution by chunks");
      args = whole ? std::vector<ScalarArg>{ScalarArg::fixed(0), ScalarArg::fixed(p.out_channels)}
                   : std::vector<ScalarArg>{chunk_arg(S::kChunkBegin), chunk_arg(S::kChunkEnd)};
      break;
    }
    case plan::CallMode::kAccumulate:
      if (depthwise || p.groups > 1) return fail_no_kernel(context, "accumulation of a non-aggregating operator");
      TINYFIT_RETURN_IF_ERROR(check_accumulator(context, call.outputs[0], constants->is_float()));
      kind = CallKind::kAccumulate;
      args = {chunk_arg(S::kChunkBegin), bits, chunk_arg(S::kFirstIteration)};
      break;
    case plan::CallMode::kFinalize:
      if (depthwise || p.groups > 1) return fail_no_kernel(context, "finalize of a non-aggregating operator");
      TINYFIT_RETURN_IF_ERROR(check_accumulator(context, call.inputs.back(), constants->is_float()));
      kind = CallKind::kFinalize;
      args = {bits};
      input_index = call.inputs.size() - 1;
      break;
    case plan::CallMode::kCopy:
      return fail_no_kernel(context, "a copy");
  }

  // The primitive (exec/conv_primitive.h's rule) and its kernel.
  const ConvPrimitive primitive = choose_conv_primitive(describe_conv_call(context, *constants));
  if (primitive != ConvPrimitive::kDirect && !context.lists_calls_only) {
    constants->pack_for(primitive, kind == CallKind::kAccumulate, requant_records_of(primitive));
  }
  if (!reads_weights(kind)) constants->drop_weights();
  const KernelRow* row = find_kernel(constants->dtype_token(), primitive, node.op, kind);
  TINYFIT_CHECK(row != nullptr) << "no " << conv_primitive_name(primitive) << " kernel for node '" << node.name
                                << "' (" << constants->dtype_token() << ")";
  return std::make_unique<ConvKernel>(std::move(constants), std::string(row->name), row->function, input_index,
                                      std::move(args));
}

}  // namespace tinyfit::exec
