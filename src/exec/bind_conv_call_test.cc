// The conv-family call itself, outside the plan executor: views with the
// strides of a larger tensor, the code emitted for generated C (the same
// function, constants and arguments as run()), and the combinations that have
// no kernel (exit 2, never a fake result).
#include <gtest/gtest.h>


#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "support/conv_test_nets.h"
#include "support/recording_emitter.h"
#include "exec/kernel_call.h"
#include "exec/reference_interpreter.h"
#include "plan/build_plan.h"

namespace tinyfit::exec {
namespace {

using conv_test::Layer;
using conv_test::Net;

Net make_conv_net(ir::DType dtype, ir::OpType op, const ir::Shape& input, int64_t out_channels) {
  Net net;
  net.dtype = dtype;
  Layer layer;
  layer.op = op;
  layer.out_channels = out_channels;
  if (op != ir::OpType::kFullyConnected) {
    layer.kernel_h = layer.kernel_w = 3;
    layer.stride = 2;
    layer.pad = {1, 1, 1, 1};
  }
  net.set_output(net.add_layer("layer", net.add_input(input), layer));
  return net;
}

plan::Plan whole_plan(const ir::Graph& graph) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  return plan::build_operator_plan(graph, bg, analysis::given_order(bg));
}

// A view of `shape` inside a buffer of `outer` elements per axis, starting at
// `origin`: the strides of the larger tensor.
tf_view make_inner_view(std::vector<int8_t>& buffer, const ir::Shape& outer, const ir::Shape& origin,
                        const ir::Shape& shape) {
  tf_view v{};
  int64_t stride = 1, offset = 0;
  for (int a = 3; a >= 0; --a) {
    v.strides[a] = static_cast<int32_t>(stride);
    v.shape[a] = static_cast<int32_t>(shape[static_cast<size_t>(a)]);
    offset += origin[static_cast<size_t>(a)] * stride;
    stride *= outer[static_cast<size_t>(a)];
  }
  buffer.assign(static_cast<size_t>(stride), static_cast<int8_t>(0x5A));
  v.data = buffer.data() + offset;
  return v;
}

TEST(QS8ConvBinding, ViewsWithALargerTensorsStridesReadAndWriteOnlyTheirElements) {
  for (ir::OpType op : {ir::OpType::kConv2D, ir::OpType::kDepthwiseConv2D}) {
    const Net net = make_conv_net(ir::DType::kI8, op, {1, 5, 6, 3}, op == ir::OpType::kConv2D ? 4 : 3);
    const plan::Plan plan = whole_plan(net.graph);
    Result<std::unique_ptr<PreparedKernel>> kernel = prepare_kernel({net.graph, plan, plan.steps[0].call()});
    ASSERT_TRUE(kernel.has_value()) << kernel.error().format();
    const ir::Shape y_shape = net.graph.tensor(net.graph.outputs[0]).shape;  // 1x3x3xC
    std::vector<int8_t> x_buffer, y_buffer;
    // Input inside [1, 6, 8, 7] at (0, 1, 1, 2); output inside [1, 4, 4, 6] at (0, 1, 0, 1).
    const tf_view x = make_inner_view(x_buffer, {1, 6, 8, 7}, {0, 1, 1, 2}, {1, 5, 6, 3});
    const tf_view y = make_inner_view(y_buffer, {1, 4, 4, 6}, {0, 1, 0, 1}, y_shape);
    const auto xs = net.inputs[0].values<int8_t>();
    size_t i = 0;
    for (int r = 0; r < 5; ++r)
      for (int c = 0; c < 6; ++c)
        for (int ch = 0; ch < 3; ++ch) static_cast<int8_t*>(x.data)[r * x.strides[1] + c * x.strides[2] + ch] = xs[i++];
    const std::vector<int8_t> y_before = y_buffer;
    KernelViews views;
    views.inputs = std::span<const tf_view>(&x, 1);
    views.outputs = std::span<const tf_view>(&y, 1);
    (*kernel)->run(views);
    const TensorData expected = run_reference(net.graph, net.inputs)->at(0);
    const auto ys = expected.values<int8_t>();
    std::vector<bool> inside(y_buffer.size(), false);
    i = 0;
    for (int r = 0; r < y.shape[1]; ++r)
      for (int c = 0; c < y.shape[2]; ++c)
        for (int ch = 0; ch < y.shape[3]; ++ch) {
          const ptrdiff_t at = static_cast<int8_t*>(y.data) - y_buffer.data() + r * y.strides[1] + c * y.strides[2] + ch;
          inside[static_cast<size_t>(at)] = true;
          EXPECT_EQ(y_buffer[static_cast<size_t>(at)], ys[i++]) << ir::op_type_name(op);
        }
    for (size_t k = 0; k < y_buffer.size(); ++k) {
      if (!inside[k]) {
        EXPECT_EQ(y_buffer[k], y_before[k]) << ir::op_type_name(op) << " wrote outside its view at " << k;
      }
    }
  }
}

TEST(ConvBinding, EmittedCallIsTheRunCallWithItsConstants) {
  const Net net = make_conv_net(ir::DType::kI8, ir::OpType::kConv2D, {1, 5, 6, 3}, 4);
  plan::Plan plan = whole_plan(net.graph);
  Result<std::unique_ptr<PreparedKernel>> kernel = prepare_kernel({net.graph, plan, plan.steps[0].call()});
  ASSERT_TRUE(kernel.has_value());
  testing::RecordingEmitter e;
  ASSERT_TRUE((*kernel)->emit(e).has_value());
  ASSERT_EQ(e.calls.size(), 1u);
  const testing::RecordingEmitter::Call& call = e.calls[0];
  EXPECT_EQ(call.function, (*kernel)->kernel_name());
  EXPECT_EQ(call.function, "tf_qs8_conv2d_direct");
  EXPECT_EQ(call.header, "tinyfit/conv.h");
  // Whole call: output channels [0, 4).
  EXPECT_EQ(call.arguments, (std::vector<std::string>{"&in0", "&out0", "&struct0_params", "0", "4"}));
  const std::string& params = call.arguments[2];
  EXPECT_EQ(e.struct_of(params).c_type, "tf_conv_params");
  EXPECT_EQ(e.arrays.at(e.field_of(params, "weights")).bytes, net.graph.tensor(net.graph.nodes[0].inputs[1]).data);
  // One multiplier per output channel.
  EXPECT_EQ(e.arrays.at(e.field_of(params, "multiplier")).bytes.size(), 4u * sizeof(int32_t));
  EXPECT_EQ(e.field_of(params, "stride_h"), "2");
  EXPECT_EQ(e.field_of(params, "input_offset"), "3");  // -(zero point -3), bind_conv_test_nets.h

  // The same node accumulating in a loop: chunk and first-iteration flags.
  plan::KernelCall accumulate = conv_test::make_call(0, plan::CallMode::kAccumulate, {}, {}, 16);
  accumulate.inputs = plan.steps[0].call().inputs;
  accumulate.outputs = plan.steps[0].call().outputs;
  plan.buffers[static_cast<size_t>(accumulate.outputs[0].buffer)].dtype = ir::DType::kI16;
  Result<std::unique_ptr<PreparedKernel>> acc = prepare_kernel({net.graph, plan, accumulate});
  ASSERT_TRUE(acc.has_value()) << acc.error().format();
  testing::RecordingEmitter a;
  ASSERT_TRUE((*acc)->emit(a).has_value());
  ASSERT_EQ(a.calls.size(), 1u);
  EXPECT_EQ(a.calls[0].function, "tf_qs8_conv2d_direct_accumulate");
  EXPECT_EQ(a.calls[0].arguments,
            (std::vector<std::string>{"&in0", "&out0", "&struct0_params", "chunk_begin", "16", "first"}));
}

TEST(ConvBinding, CombinationsWithoutAKernelSayNotBuiltYet) {
  // Grouped Conv2D is neither channel-wise nor aggregating: whole calls only.
  Net grouped;
  Layer layer;
  layer.out_channels = 4;
  layer.groups = 2;
  grouped.set_output(grouped.add_layer("grouped", grouped.add_input({1, 3, 3, 4}), layer));
  plan::Plan plan = whole_plan(grouped.graph);
  plan::KernelCall chunk = plan.steps[0].call();
  chunk.mode = plan::CallMode::kChunk;
  Result<std::unique_ptr<PreparedKernel>> k = prepare_kernel({grouped.graph, plan, chunk});
  ASSERT_FALSE(k.has_value());
  EXPECT_EQ(k.error().code, ExitCode::kBadCommandLine);
  EXPECT_NE(k.error().message.find("grouped"), std::string::npos) << k.error().message;

  // Accumulators are 32, 16 or 8 bits wide (PEX section 3.4), nothing else.
  const Net net = make_conv_net(ir::DType::kI8, ir::OpType::kFullyConnected, {2, 6}, 3);
  plan = whole_plan(net.graph);
  plan::KernelCall accumulate = plan.steps[0].call();
  accumulate.mode = plan::CallMode::kAccumulate;
  accumulate.accumulator_bits = 12;
  Result<std::unique_ptr<PreparedKernel>> f = prepare_kernel({net.graph, plan, accumulate});
  ASSERT_FALSE(f.has_value());
  EXPECT_EQ(f.error().code, ExitCode::kBadCommandLine);
}

}  // namespace
}  // namespace tinyfit::exec
