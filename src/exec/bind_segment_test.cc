// The segment kernels, bound through plan calls that declare an overlap, run
// with their output at the offset the compiler derives (plan/segment_kernel.h)
// in a poisoned arena that holds nothing else, and equal the reference
// interpreter: int8 / uint8 bit for bit, float32 within summation-order
// error. Sizes sit at the kernels' block edges (TF_SEGMENT_CONV_BLOCK 4,
// TF_SEGMENT_DWCONV_BLOCK 16), windows at the image borders.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "plan/segment_call.h"
#include "plan/segment_closed_form.h"
#include "support/inverted_bottleneck_nets.h"
#include "support/overlap_plans.h"
#include "support/plan_runs.h"
#include "support/recording_emitter.h"

namespace tinyfit::exec {
namespace {

using conv_test::BottleneckConfig;
using conv_test::Layer;
using conv_test::Net;

using plan::testing::make_whole_graph_call;
constexpr int64_t kAlignment = plan::testing::kOverlapAlignmentBytes;

struct OverlapRun {
  int64_t offset_bytes = 0;  // output start - input start
  int64_t arena_bytes = 0;
  Result<std::vector<TensorData>> outputs = std::vector<TensorData>{};
};

// One call over the whole graph, its output `offset` bytes from its input
// (the chosen offset when `offset` is empty), workspace after both.
OverlapRun run_overlapped(const ir::Graph& graph, const std::vector<TensorData>& inputs, plan::Traversal traversal,
                          std::optional<int64_t> offset = std::nullopt) {
  const plan::Plan plan = plan::testing::make_one_call_overlap_plan(graph, traversal, offset).value();
  OverlapRun run;
  run.offset_bytes = plan.steps.front().call().overlap->offset_bytes;
  run.arena_bytes = plan.arena_bytes;
  run.outputs = execute_plan(graph, plan, inputs);
  return run;
}

void expect_reference_at_the_limit(const Net& net, const std::string& context) {
  const std::vector<TensorData> expected = run_reference(net.graph, net.inputs).value();
  for (plan::Traversal traversal : {plan::Traversal::kAscending, plan::Traversal::kDescending}) {
    const OverlapRun run = run_overlapped(net.graph, net.inputs, traversal);
    const std::string where = context + " " + std::string(plan::traversal_name(traversal)) + " at offset " +
                              std::to_string(run.offset_bytes);
    ASSERT_TRUE(run.outputs) << where << ": " << run.outputs.error().format();
    testing::expect_same_outputs(*run.outputs, expected, 1e-5, where);
  }
}

Net make_net(ir::DType dtype, const ir::Shape& input) {
  Net net;
  net.dtype = dtype;
  net.add_input(input);
  return net;
}

std::string describe(const ir::Shape& shape) { return ir::format_shape(shape); }

TEST(BindSegment, PointwiseConvAtItsLimitEqualsTheReference) {
  // Channels below, at and above a block of 4; 1, 2 and 7 pixels.
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8, ir::DType::kF32}) {
    for (int64_t cin : {1, 4, 5, 9}) {
      for (int64_t cout : {1, 3, 4, 8, 13}) {
        for (int64_t cols : {1, 2, 7}) {
          Net net = make_net(dtype, {1, 1, cols, cin});
          Layer layer;
          layer.out_channels = cout;
          net.set_output(net.add_layer("conv", net.graph.inputs[0], layer));
          expect_reference_at_the_limit(net, "1x1 " + std::to_string(cin) + "->" + std::to_string(cout) + " x" +
                                                 std::to_string(cols) + " " + std::string(ir::dtype_name(dtype)));
        }
      }
    }
  }
}

TEST(BindSegment, WindowedConvAtItsLimitEqualsTheReference) {
  struct Case {
    ir::Shape input;
    int64_t out_channels, kernel, stride, dilation;
    ir::Padding2D pad;
  };
  const Case cases[] = {
      {{1, 5, 6, 3}, 8, 3, 1, 1, {1, 1, 1, 1}},   // SAME 3x3, channels past a block
      {{1, 7, 7, 4}, 5, 3, 2, 1, {1, 1, 1, 1}},   // stride 2: output slower than input
      {{1, 6, 5, 2}, 4, 3, 2, 1, {0, 0, 1, 1}},   // TF SAME at stride 2: padding after only
      {{2, 4, 4, 3}, 6, 2, 1, 1, {0, 0, 0, 0}},   // batch 2, valid 2x2
      {{1, 8, 3, 1}, 16, 3, 1, 2, {2, 2, 2, 2}},  // dilation 2, one input channel
      {{1, 1, 1, 5}, 7, 3, 1, 1, {1, 1, 1, 1}},   // a 1x1 image under a 3x3 window
  };
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8, ir::DType::kF32}) {
    for (const Case& c : cases) {
      Net net = make_net(dtype, c.input);
      Layer layer;
      layer.out_channels = c.out_channels;
      layer.kernel_h = layer.kernel_w = c.kernel;
      layer.stride = c.stride;
      layer.dilation = c.dilation;
      layer.pad = c.pad;
      layer.activation = conv_test::relu6();
      net.set_output(net.add_layer("conv", net.graph.inputs[0], layer));
      expect_reference_at_the_limit(net, "conv " + describe(c.input) + " k" + std::to_string(c.kernel) + " s" +
                                             std::to_string(c.stride) + " " + std::string(ir::dtype_name(dtype)));
    }
  }
}

TEST(BindSegment, DepthwiseAtItsLimitEqualsTheReference) {
  struct Case {
    ir::Shape input;
    int64_t kernel, stride;
  };
  // Channels 1, 15, 16, 17 and 33 around the block of 16; 5x5 and 7x7 windows.
  const Case cases[] = {{{1, 6, 6, 1}, 3, 1},  {{1, 5, 7, 15}, 3, 1}, {{1, 4, 4, 16}, 3, 2},
                        {{1, 7, 5, 17}, 5, 1}, {{1, 9, 9, 33}, 7, 2}, {{2, 3, 3, 16}, 3, 1}};
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8, ir::DType::kF32}) {
    for (const Case& c : cases) {
      Net net = make_net(dtype, c.input);
      net.set_output(net.add_layer("dw", net.graph.inputs[0],
                                   conv_test::make_same_layer(ir::OpType::kDepthwiseConv2D, c.input[3], c.kernel,
                                                              c.stride, c.input[1], c.input[2], conv_test::relu6())));
      expect_reference_at_the_limit(net, "depthwise " + describe(c.input) + " k" + std::to_string(c.kernel) + " s" +
                                             std::to_string(c.stride) + " " + std::string(ir::dtype_name(dtype)));
    }
  }
}

TEST(BindSegment, FullyConnectedAtItsLimitEqualsTheReference) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8, ir::DType::kF32}) {
    for (const ir::Shape& input : {ir::Shape{1, 6}, ir::Shape{3, 5}, ir::Shape{4, 16}}) {
      for (int64_t out : {1, 4, 7}) {
        Net net = make_net(dtype, input);
        Layer layer;
        layer.op = ir::OpType::kFullyConnected;
        layer.out_channels = out;
        net.set_output(net.add_layer("fc", net.graph.inputs[0], layer));
        expect_reference_at_the_limit(net, "fc " + describe(input) + "->" + std::to_string(out) + " " +
                                               std::string(ir::dtype_name(dtype)));
      }
    }
    // Features (h, w, c): one window over the whole input.
    Net net = make_net(dtype, {1, 3, 2, 4});
    Layer layer;
    layer.op = ir::OpType::kFullyConnected;
    layer.out_channels = 5;
    net.set_output(net.add_layer("fc", net.graph.inputs[0], layer, true));
    expect_reference_at_the_limit(net, "flattening fc " + std::string(ir::dtype_name(dtype)));
  }
}

struct BottleneckCase {
  std::string name;
  ir::Shape input;
  BottleneckConfig config;
};

std::vector<BottleneckCase> bottleneck_cases() {
  std::vector<BottleneckCase> cases;
  // MobileNetV2's residual block, in place; mid channels past a block of 16.
  cases.push_back({"residual", {1, 6, 5, 8}, {17, 8, 1, 1, 3, 1, true, true}});
  cases.push_back({"residual, add(project, x)", {1, 4, 4, 4}, {24, 4, 1, 1, 3, 1, true, false}});
  // Strided depthwise, channels change: the output shrinks behind the input.
  cases.push_back({"stride 2", {1, 7, 6, 4}, {12, 6, 1, 1, 3, 2, false, true}});
  // MCUNet's first block: a 3x3 stride-2 stem conv as the expand.
  cases.push_back({"stem", {1, 9, 8, 3}, {16, 8, 3, 2, 3, 1, false, true}});
  // Wide windows (MCUNet uses 5x5 and 7x7) on small images.
  cases.push_back({"7x7", {1, 5, 6, 5}, {9, 5, 1, 1, 7, 1, true, true}});
  cases.push_back({"5x5 stride 2", {1, 6, 6, 3}, {5, 7, 1, 1, 5, 2, false, true}});
  cases.push_back({"1x1 image", {1, 1, 1, 4}, {8, 4, 1, 1, 3, 1, true, true}});
  cases.push_back({"batch 2", {2, 3, 4, 4}, {6, 4, 1, 1, 3, 1, true, true}});
  return cases;
}

TEST(BindSegment, FusedInvertedBottleneckAtItsLimitEqualsTheUnfusedReference) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    for (const BottleneckCase& c : bottleneck_cases()) {
      Net net = make_net(dtype, c.input);
      net.set_output(conv_test::add_inverted_bottleneck(net, "block", net.graph.inputs[0], c.config));
      expect_reference_at_the_limit(net, "inverted bottleneck " + c.name + " " + std::string(ir::dtype_name(dtype)));
    }
  }
}

// The kernel the one call of the overlap plan of `net` runs.
std::string name_kernel(const Net& net) {
  const plan::Plan plan = plan::testing::make_one_call_overlap_plan(net.graph, plan::Traversal::kAscending).value();
  const auto kernel = prepare_kernel(KernelCallContext{net.graph, plan, plan.steps.front().call()});
  return kernel ? std::string((*kernel)->kernel_name()) : kernel.error().format();
}

// Gives the int8 weights of the nodes in `nodes` (indices into the graph) a
// zero point, which the __dsp arithmetic does not widen.
void make_weights_asymmetric(Net& net, const std::vector<size_t>& nodes) {
  for (size_t n : nodes) {
    ir::Tensor& weights = net.graph.tensor(net.graph.nodes[n].inputs[1]);
    for (int32_t& zero_point : weights.quant->zero_point) zero_point = 3;
  }
}

TEST(BindSegment, QuantizedCallsRunTheDspFastPathsAndAsymmetricInt8WeightsThePortableKernels) {
  // The cases above run the __dsp kernels for int8 and uint8
  // (conv_dsp_kernels_test covers them at more sizes); int8 weights with a
  // zero point, which the __dsp kernels do not widen, run the portable ones.
  for (bool asymmetric : {false, true}) {
    Net conv = make_net(ir::DType::kI8, {1, 3, 4, 5});
    Layer layer;
    layer.out_channels = 6;
    layer.kernel_h = layer.kernel_w = 3;
    layer.pad = {1, 1, 1, 1};
    conv.set_output(conv.add_layer("conv", conv.graph.inputs[0], layer));
    if (asymmetric) make_weights_asymmetric(conv, {0});
    const std::string expected = std::string("tf_qs8_conv2d_segment") + (asymmetric ? "" : "__dsp");
    EXPECT_EQ(name_kernel(conv), expected);
    expect_reference_at_the_limit(conv, expected);
  }
  // The fused kernel runs the __dsp path when it serves all three stages,
  // the portable kernel when any stage needs it (stages: expand 0, depthwise
  // 1, project 2).
  const std::vector<std::vector<size_t>> portable_stages = {{}, {0}, {1}, {2}, {0, 2}, {0, 1, 2}};
  for (const std::vector<size_t>& portable : portable_stages) {
    Net fused = make_net(ir::DType::kI8, {1, 6, 5, 8});
    fused.set_output(
        conv_test::add_inverted_bottleneck(fused, "block", fused.graph.inputs[0], {17, 8, 1, 1, 3, 1, true, true}));
    make_weights_asymmetric(fused, portable);
    const std::string expected =
        std::string("tf_qs8_inverted_bottleneck_segment") + (portable.empty() ? "__dsp" : "");
    EXPECT_EQ(name_kernel(fused), expected) << portable.size() << " portable stages";
    expect_reference_at_the_limit(fused, expected + " with " + std::to_string(portable.size()) + " portable stages");
  }
}

TEST(BindSegment, ResidualBottleneckRunsInPlace) {
  // The residual block stores output pixel p over input pixel p after its
  // last read: offset 0 (vMCU §5.2: the output overwrites consumed input).
  Net net = make_net(ir::DType::kI8, {1, 6, 5, 8});
  net.set_output(conv_test::add_inverted_bottleneck(net, "block", net.graph.inputs[0], {17, 8, 1, 1, 3, 1, true, true}));
  const OverlapRun run = run_overlapped(net.graph, net.inputs, plan::Traversal::kAscending);
  EXPECT_EQ(run.offset_bytes, 0);
}

TEST(BindSegment, OneStepPastTheLimitClobbersInputTheKernelStillReads) {
  // With these data a clobbered input byte changes some output: the limit the
  // compiler derives is the kernels' real one, not merely a safe bound. The
  // fused block runs the portable kernel (asymmetric projection weights),
  // whose access order is the record's; the __dsp one reads the second
  // output pixel of a pair earlier, for which the limit is a safe bound.
  Net conv = make_net(ir::DType::kI8, {1, 1, 9, 8});
  Layer layer;
  layer.out_channels = 12;
  conv.set_output(conv.add_layer("conv", conv.graph.inputs[0], layer));
  Net fused = make_net(ir::DType::kI8, {1, 7, 6, 4});
  fused.set_output(conv_test::add_inverted_bottleneck(fused, "block", fused.graph.inputs[0], {12, 6, 1, 1, 3, 2, false, true}));
  make_weights_asymmetric(fused, {2});
  EXPECT_EQ(name_kernel(fused), "tf_qs8_inverted_bottleneck_segment");
  for (const Net* net : {&conv, &fused}) {
    const std::vector<TensorData> expected = run_reference(net->graph, net->inputs).value();
    for (plan::Traversal traversal : {plan::Traversal::kAscending, plan::Traversal::kDescending}) {
      const plan::SegmentKernel record =
          plan::describe_segment_call(net->graph, make_whole_graph_call(net->graph), traversal).value();
      const int64_t limit = *plan::compute_overlap_limit(record).limit_bytes;
      const int64_t past = limit + (traversal == plan::Traversal::kAscending ? 1 : -1);
      const OverlapRun run = run_overlapped(net->graph, net->inputs, traversal, past);
      ASSERT_TRUE(run.outputs) << run.outputs.error().format();
      EXPECT_NE((*run.outputs)[0].bytes, expected[0].bytes)
          << net->graph.nodes[0].name << " " << plan::traversal_name(traversal) << " at " << past;
    }
  }
}

TEST(BindSegment, CheckingModeCatchesAReadOfOverwrittenBytes) {
  // x -> conv a (declared over x) -> y; x -> conv b -> z: b reads x after a
  // overwrote part of it. verify_plan rejects such a plan; the executor's
  // checking mode catches it too, whatever the values.
  Net net = make_net(ir::DType::kI8, {1, 1, 6, 8});
  Layer layer;
  layer.out_channels = 8;
  const ir::TensorId y = net.add_layer("a", net.graph.inputs[0], layer);
  const ir::TensorId z = net.add_layer("b", net.graph.inputs[0], layer);
  net.graph.outputs = {y, z};
  plan::Plan plan;
  plan.buffers.push_back({"x", plan::BufferRole::kModelInput, ir::DType::kI8, 48, kAlignment, 8});
  plan.buffers.push_back({"y", plan::BufferRole::kModelOutput, ir::DType::kI8, 48, kAlignment, 0});
  plan.buffers.push_back({"z", plan::BufferRole::kModelOutput, ir::DType::kI8, 48, kAlignment, 56});
  plan.inputs = {0};
  plan.outputs = {1, 2};
  plan.arena_bytes = 104;
  const ir::Shape shape{1, 1, 6, 8};
  plan::KernelCall a = conv_test::make_call(0, plan::CallMode::kWhole, {plan::make_dense_view(0, shape)},
                                            {plan::make_dense_view(1, shape)});
  a.overlap = plan::DeclaredOverlap{0, plan::Traversal::kAscending, -8};
  plan.steps.push_back({a});
  plan.steps.push_back({conv_test::make_call(1, plan::CallMode::kWhole, {plan::make_dense_view(0, shape)},
                                             {plan::make_dense_view(2, shape)})});
  ExecuteOptions options;
  options.check_overwrites = true;
  const auto checked = execute_plan(net.graph, plan, net.inputs, options);
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().message.find("node 'b' reads byte 0 of 'x' (arena byte 8), last written for 'y'"),
            std::string::npos)
      << checked.error().message;
  EXPECT_TRUE(execute_plan(net.graph, plan, net.inputs));  // unchecked, it runs to the end
}

TEST(BindSegment, CheckingModeCatchesAReadOfPoison) {
  Net net = make_net(ir::DType::kI8, {1, 1, 2, 4});
  Layer layer;
  layer.out_channels = 4;
  net.set_output(net.add_layer("conv", net.graph.inputs[0], layer));
  plan::Plan plan;
  plan.buffers.push_back({"x", plan::BufferRole::kModelInput, ir::DType::kI8, 8, kAlignment, 0});
  plan.buffers.push_back({"t", plan::BufferRole::kActivation, ir::DType::kI8, 8, kAlignment, 8});
  plan.buffers.push_back({"y", plan::BufferRole::kModelOutput, ir::DType::kI8, 8, kAlignment, 16});
  plan.inputs = {0};
  plan.outputs = {2};
  plan.arena_bytes = 24;
  // Reads t, which nothing wrote (a dataflow bug verify_plan also rejects).
  plan.steps.push_back({conv_test::make_call(0, plan::CallMode::kWhole, {plan::make_dense_view(1, {1, 1, 2, 4})},
                                             {plan::make_dense_view(2, {1, 1, 2, 4})})});
  ExecuteOptions options;
  options.check_overwrites = true;
  const auto checked = execute_plan(net.graph, plan, net.inputs, options);
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().message.find("which nothing wrote"), std::string::npos) << checked.error().message;
}

TEST(BindSegment, EmitsTheCallItRuns) {
  Net net = make_net(ir::DType::kI8, {1, 4, 4, 4});
  net.set_output(conv_test::add_inverted_bottleneck(net, "block", net.graph.inputs[0], {8, 4, 1, 1, 3, 1, true, true}));
  plan::Plan plan;
  plan.buffers.push_back({"ws", plan::BufferRole::kWorkspace, ir::DType::kI8, 1 << 12, kAlignment, 0});
  plan::KernelCall call = make_whole_graph_call(net.graph);
  call.inputs = {plan::make_dense_view(0, {1, 4, 4, 4})};
  call.outputs = {plan::make_dense_view(0, {1, 4, 4, 4})};
  call.workspace = 0;
  call.overlap = plan::DeclaredOverlap{0, plan::Traversal::kDescending, 0};
  const auto kernel = prepare_kernel(KernelCallContext{net.graph, plan, call});
  ASSERT_TRUE(kernel) << kernel.error().format();
  testing::RecordingEmitter emitter;
  ASSERT_TRUE((*kernel)->emit(emitter));
  ASSERT_EQ(emitter.calls.size(), 1u);
  EXPECT_EQ(emitter.calls[0].function, "tf_qs8_inverted_bottleneck_segment__dsp");
  EXPECT_EQ(emitter.calls[0].arguments.back(), "1");  // descending
  const auto& fields = emitter.fields_of(emitter.calls[0].arguments[2]);
  ASSERT_EQ(fields.size(), 7u);
  EXPECT_EQ(fields[3].first, "add");
  EXPECT_NE(fields[3].second.find('&'), std::string::npos);  // a residual: the add's parameters
}

// The requantisation records the fused __dsp call of `net` (one block, its
// call as make_one_call_overlap_plan makes it) gives each stage: per stage
// (expand, depthwise, project) whether they are the folded ones.
std::vector<bool> folded_stages(const Net& net) {
  const plan::Plan plan = plan::testing::make_one_call_overlap_plan(net.graph, plan::Traversal::kAscending).value();
  const auto kernel = prepare_kernel(KernelCallContext{net.graph, plan, plan.steps.front().call()});
  EXPECT_TRUE(kernel) << kernel.error().format();
  if (!kernel) return {};
  testing::RecordingEmitter emitter;
  EXPECT_TRUE((*kernel)->emit(emitter));
  EXPECT_EQ(emitter.calls.at(0).function, "tf_qs8_inverted_bottleneck_segment__dsp");
  const std::string params = emitter.calls.at(0).arguments.at(2);
  std::vector<bool> folded;
  for (std::string_view stage : {"expand", "depthwise", "project"}) {
    const std::string stage_params = emitter.field_of(params, stage);  // "&struct<n>_<hint>"
    folded.push_back(emitter.field_of(stage_params, "requant_folded") != "(const tf_requant_folded*)0");
  }
  return folded;
}

TEST(BindSegment, FusedDspStagesReadFoldedRecordsWhereEveryChannelFolds) {
  // Stage s's output scale set so that its channel 0 requantises with a
  // multiplier of 0.75 (right shift 0, which has no folded record): that
  // stage reads the plain records, the others the folded ones, bit for bit
  // the reference either way. A 1x1 expand and a stem's gathered windows
  // (both always computed in groups); a window past the gathered size
  // computes its mids pixel by pixel, whose expand reads plain records.
  struct Block {
    std::string name;
    ir::Shape input;
    BottleneckConfig config;
    bool expand_in_groups;
  };
  const std::vector<Block> blocks = {
      {"1x1 expand", {1, 6, 5, 8}, {17, 8, 1, 1, 3, 1, true, true}, true},
      {"stem", {1, 9, 8, 3}, {16, 8, 3, 2, 3, 1, false, true}, true},
      {"stem past the gathered window", {1, 5, 6, 8}, {12, 8, 3, 1, 3, 1, true, true}, false},
  };
  for (const Block& block : blocks) {
    for (int plain_stage = -1; plain_stage < 3; ++plain_stage) {
      Net net = make_net(ir::DType::kI8, block.input);
      net.set_output(conv_test::add_inverted_bottleneck(net, "block", net.graph.inputs[0], block.config));
      if (plain_stage >= 0) {
        const ir::Node& node = net.graph.nodes[static_cast<size_t>(plain_stage)];
        const float in_scale = net.graph.tensor(node.inputs[0]).quant->scale[0];
        const float w_scale = net.graph.tensor(node.inputs[1]).quant->scale[0];
        net.graph.tensor(node.outputs[0]).quant->scale = {in_scale * w_scale / 0.75f};
      }
      const std::string where = block.name + ", plain stage " + std::to_string(plain_stage);
      const std::vector<bool> expected = {block.expand_in_groups && plain_stage != 0, plain_stage != 1,
                                          plain_stage != 2};
      EXPECT_EQ(folded_stages(net), expected) << where;
      expect_reference_at_the_limit(net, where);
    }
  }
}

}  // namespace
}  // namespace tinyfit::exec
