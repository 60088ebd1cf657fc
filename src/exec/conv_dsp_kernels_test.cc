// The fast conv-family kernels (runtime/kernels.def rows ending in __dsp, and
// the float32 im2col + GEMM and Winograd kernels), through their bindings and
// the plan executor, against the reference interpreter (integer kernels bit
// for bit, float32 within the compiler's float tolerance) at edge sizes: channel counts around the
// depthwise kernel's groups of four and the GEMM's pairs, output pixel
// counts around the im2col group of three, K not a multiple of four, kernel
// sizes, strides, dilation, asymmetric padding, groups, every call mode
// (whole, chunks of output channels starting off the groups, rows,
// accumulation, in place). Each case names the kernel it must run, so a
// change of the rule cannot quietly test the direct loops instead; the last
// test checks that every fast kernel of kernels.def has cases. On the host the
// kernels run their portable C; tests/mcu runs the same on the Cortex-M4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/buffer_graph.h"
#include "analysis/inplace.h"
#include "analysis/memory_profile.h"
#include "exec/add_kernel_workspaces.h"
#include "exec/conv_primitive.h"
#include "exec/kernel_call.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "exec/wide_weights.h"
#include "ir/verify_graph.h"
#include "plan/build_plan.h"
#include "plan/plan_memory.h"
#include "plan/plan_walk.h"
#include "plan/verify_plan.h"
#include "support/conv_test_nets.h"
#include "support/inverted_bottleneck_nets.h"
#include "support/kernel_oracle_harness.h"
#include "support/overlap_plans.h"

namespace tinyfit::exec {
namespace {

using conv_test::Layer;
using conv_test::Net;
using conv_test::PlanBuilder;
using plan::BufferRole;
using plan::CallMode;

// kOverlapAscending / kOverlapDescending: one call over the whole graph (a
// fused inverted bottleneck when it has several nodes), its output at the
// offset the compiler derives from the segment kernels' access order.
enum class Mode { kWhole, kChannelChunks, kRows, kAccumulate, kInPlace, kOverlapAscending, kOverlapDescending };

bool is_overlap(Mode mode) { return mode == Mode::kOverlapAscending || mode == Mode::kOverlapDescending; }

struct Case {
  std::string name;
  std::string kernel;  // the kernel the node's calls must run, without "tf_<dtype>_"
  Net net;
  Mode mode = Mode::kWhole;
  int64_t tile = 0;         // chunks, rows, accumulation
  bool workspaces = false;  // add_kernel_workspaces before placing
  bool wide_weights = false;  // the plan stores the node's weights widened (plan::KernelCall::wide_weights)
};

Layer make_layer(ir::OpType op, int64_t out_channels, int64_t kernel, int64_t stride = 1, int64_t dilation = 1,
                 ir::Padding2D pad = {}, int64_t groups = 1) {
  Layer l;
  l.op = op;
  l.out_channels = out_channels;
  l.kernel_h = l.kernel_w = kernel;
  l.stride = stride;
  l.dilation = dilation;
  l.pad = pad;
  l.groups = groups;
  l.activation = stride == 2 ? conv_test::relu6() : ir::FusedActivation{};
  return l;
}

Net make_net(ir::DType dtype, const ir::Shape& input, const Layer& layer, bool flatten = false) {
  Net net;
  net.dtype = dtype;
  net.set_output(net.add_layer("layer", net.add_input(input), layer, flatten));
  EXPECT_TRUE(ir::verify_graph(net.graph).has_value());
  return net;
}

// --- Plans of one node ----------------------------------------------------------

plan::KernelCall make_call(CallMode mode, std::vector<plan::View> in, std::vector<plan::View> out) {
  return conv_test::make_call(0, mode, std::move(in), std::move(out));
}

plan::Plan build_plan(const Case& c) {
  const ir::Graph& g = c.net.graph;
  const ir::Node& node = g.nodes[0];
  const ir::Shape& x_shape = g.tensor(node.inputs[0]).shape;
  const ir::Shape& y_shape = g.tensor(node.outputs[0]).shape;
  PlanBuilder b;
  plan::Plan plan;
  if (is_overlap(c.mode)) {
    return plan::testing::make_one_call_overlap_plan(g, c.mode == Mode::kOverlapAscending
                                                            ? plan::Traversal::kAscending
                                                            : plan::Traversal::kDescending)
        .value();
  }
  if (c.mode == Mode::kWhole || c.mode == Mode::kInPlace) {
    analysis::BufferGraph bg = analysis::build_buffer_graph(g);
    const analysis::Order order = analysis::given_order(bg);
    if (c.mode == Mode::kInPlace) bg = analysis::apply_inplace(bg, order).graph;
    plan = plan::build_operator_plan(g, bg, order);
  } else {
    const plan::BufferId x = b.add_tensor_buffer(g, node.inputs[0], BufferRole::kModelInput);
    if (c.mode == Mode::kAccumulate) {
      const plan::BufferId acc =
          b.add_buffer("acc", BufferRole::kAccumulator, ir::DType::kI32, g.tensor(node.outputs[0]).num_elements());
      const plan::BufferId y = b.add_tensor_buffer(g, node.outputs[0], BufferRole::kModelOutput);
      b.add_loop(x_shape.back(), c.tile,
                 {make_call(CallMode::kAccumulate, {conv_test::chunk_slice(x, x_shape)},
                            {plan::make_dense_view(acc, y_shape)})});
      b.add_step(
          make_call(CallMode::kFinalize, {plan::make_dense_view(acc, y_shape)}, {plan::make_dense_view(y, y_shape)}));
      plan = b.plan();
    } else if (c.mode == Mode::kRows) {
      // Output rows `tile` at a time (a one-row output: one chunk) from the
      // whole input: kWhole calls whose output view sweeps rows (plan.h).
      const plan::BufferId y = b.add_tensor_buffer(g, node.outputs[0], BufferRole::kModelOutput);
      const int64_t rows = y_shape[1];
      plan = b.plan();
      plan::Loop loop{"rows", plan::LoopAxis::kRows, rows, std::min(c.tile, rows), {}};
      loop.body.push_back({make_call(CallMode::kWhole, {plan::make_dense_view(x, x_shape)},
                                     {plan::follow_chunk(plan::make_dense_view(y, y_shape), 0, 1, rows, false)})});
      plan.steps.push_back({std::move(loop)});
    } else {
      const plan::BufferId y = b.add_tensor_buffer(g, node.outputs[0], BufferRole::kModelOutput);
      plan::View in = plan::make_dense_view(x, x_shape);
      if (node.op == ir::OpType::kDepthwiseConv2D) in = conv_test::chunk_slice(x, x_shape);  // the same channels
      b.add_loop(y_shape.back(), c.tile, {make_call(CallMode::kChunk, {in}, {conv_test::chunk_slice(y, y_shape)})});
      plan = b.plan();
    }
  }
  if (c.workspaces) {
    EXPECT_TRUE(add_kernel_workspaces(g, plan).has_value());
  }
  if (c.wide_weights) {
    EXPECT_GT(mark_wide_weights(plan, {static_cast<ir::NodeId>(g.nodes.size() - 1)}), 0);
  }
  EXPECT_TRUE(plan::place_plan(plan, "greedy-by-size", {}).has_value());
  return plan;
}

// The kernels the calls of the node under test (the graph's last; an
// overlap plan's one call) run, finalize aside.
std::set<std::string> list_kernels(const Case& c, const plan::Plan& plan) {
  std::set<std::string> names;
  const auto node = static_cast<ir::NodeId>(c.net.graph.nodes.size() - 1);
  EXPECT_TRUE(plan::walk_calls(plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) -> Status {
    if ((call.node != node && !is_overlap(c.mode)) || call.mode == CallMode::kFinalize) return {};
    Result<std::unique_ptr<PreparedKernel>> kernel = prepare_kernel({c.net.graph, plan, call});
    names.insert(kernel ? std::string((*kernel)->kernel_name()) : kernel.error().format());
    return {};
  }));
  return names;
}

std::string dtype_token(ir::DType dtype) {
  return dtype == ir::DType::kI8 ? "qs8" : dtype == ir::DType::kU8 ? "qu8" : "f32";
}

// Float32 outputs: the bound `tinyfit compile` verifies plans with
// (driver/compile_verify.h).
constexpr kernel_oracle::Tolerance kFloatTolerance{1e-4, 1e-5};

void expect_case_runs_its_kernel_and_matches(const Case& c) {
  const plan::Plan plan = build_plan(c);
  const Status valid = plan::verify_plan(c.net.graph, plan);
  ASSERT_TRUE(valid.has_value()) << c.name << ": " << valid.error().format();
  EXPECT_EQ(list_kernels(c, plan), std::set<std::string>{"tf_" + dtype_token(c.net.dtype) + "_" + c.kernel}) << c.name;
  ExecuteOptions options;
  options.check_overwrites = is_overlap(c.mode);  // every read checked against the buffer that last wrote it
  Result<std::vector<TensorData>> actual = execute_plan(c.net.graph, plan, c.net.inputs, options);
  ASSERT_TRUE(actual.has_value()) << c.name << ": " << actual.error().format();
  Result<std::vector<TensorData>> expected = run_reference(c.net.graph, c.net.inputs);
  ASSERT_TRUE(expected.has_value());
  if (c.net.dtype == ir::DType::kF32) {
    int64_t inexact = 0;
    EXPECT_EQ(kernel_oracle::compare_outputs(actual->at(0), expected->at(0), kFloatTolerance, &inexact), "")
        << c.name;
  } else {
    EXPECT_EQ(actual->at(0).bytes, expected->at(0).bytes) << c.name;
  }
}

// --- Cases --------------------------------------------------------------------------

std::string describe(ir::DType dtype, const std::string& what, const ir::Shape& input, int64_t out_channels) {
  return std::string(ir::dtype_name(dtype)) + " " + what + " " + ir::format_shape(input) + " -> " +
         std::to_string(out_channels);
}

// Conv2D through im2col + GEMM (with workspaces) and, for 1x1, straight
// from the input (without).
std::vector<Case> make_conv_cases(ir::DType dtype) {
  struct Geometry {
    const char* name;
    ir::Shape input;
    int64_t kernel, stride, dilation;
    ir::Padding2D pad;
  };
  const Geometry geometries[] = {
      {"1x1", {1, 1, 1, 1}, 1, 1, 1, {}},                 // one pixel, one channel
      {"1x1", {1, 1, 2, 3}, 1, 1, 1, {}},                 // two pixels (under the group of three), K = 3
      {"1x1", {1, 2, 2, 4}, 1, 1, 1, {}},                 // four pixels (one past it), K = 4
      {"1x1", {2, 2, 3, 5}, 1, 1, 1, {}},                 // batch 2, twelve pixels, K = 5
      {"1x1 stride 2", {1, 5, 4, 9}, 1, 2, 1, {}},        // K = 9
      {"1x1", {1, 2, 3, 15}, 1, 1, 1, {}},                // K = 15: a step of eight, one of four, three alone
      {"1x1", {2, 2, 4, 8}, 1, 1, 1, {}},                 // dense pixels over two images (16: not groups of three), K = 8
      {"1x1", {1, 3, 5, 12}, 1, 1, 1, {}},                // dense pixels, K = 12: an odd count of groups of four
      {"1x1", {1, 1, 5, 8}, 1, 1, 1, {}},                 // dense pixels, five: a last group of two
      {"1x1", {1, 1, 4, 37}, 1, 1, 1, {}},                // K = 37: ten groups (the _wide loop's steps of four)
      {"3x3 same", {1, 5, 7, 3}, 3, 1, 1, {1, 1, 1, 1}},  // K = 27 (not a multiple of four)
      {"3x3 same", {1, 4, 4, 8}, 3, 1, 1, {1, 1, 1, 1}},  // K = 72, taps widened in place
      {"3x3 stride 2", {1, 7, 6, 4}, 3, 2, 1, {1, 1, 1, 1}},
      // An RGB stem (runs of nine): 7 interior pixels a row (three pairs and one alone), the last col and row padded.
      {"3x3 stride 2 rgb", {1, 9, 16, 3}, 3, 2, 1, {0, 0, 1, 1}},
      // One-channel calls of an RGB stem run four interior pixels at a time: 8 a row (two fours), then
      // 9 a row over two images with the top and bottom rows padded (two fours and a last four overlapping them).
      {"3x3 stride 2 rgb", {1, 7, 18, 3}, 3, 2, 1, {0, 0, 1, 1}},
      {"3x3 same rgb", {2, 4, 11, 3}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 same", {1, 4, 9, 5}, 3, 1, 1, {1, 1, 1, 1}},  // runs of 15: three groups and three taps
      {"5x5 stride 2 asymmetric", {1, 6, 5, 2}, 5, 2, 1, {2, 1, 1, 2}},
      {"3x3 dilation 2", {1, 6, 7, 3}, 3, 1, 2, {2, 2, 2, 2}},
      {"2x2 valid stride 2", {1, 5, 5, 5}, 2, 2, 1, {}},
      // Narrow maps, padded on both sides: the window kernel's border columns
      // run down the rows whose window rows are all in bounds. Width 1 (no
      // interior column), width 2 over five channels (runs of 10 and 15), width
      // 3 with one interior column, padding 2 (the outer columns see one tap),
      // two images, and a stride-2 stem three columns wide.
      {"3x3 same width 1", {1, 4, 1, 3}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 same width 2", {1, 5, 2, 5}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 same width 3 rgb", {1, 6, 3, 3}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 padding 2 width 3", {1, 7, 3, 3}, 3, 1, 1, {2, 2, 2, 2}},
      {"3x3 same width 2 rgb", {2, 5, 2, 3}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 stride 2 width 3 rgb", {1, 9, 3, 3}, 3, 2, 1, {1, 1, 1, 1}},
  };
  std::vector<Case> cases;
  for (const Geometry& g : geometries) {
    const bool pointwise = g.kernel == 1;
    // 10 output channels: blocks of four, then a pair (the 1x1 kernel's dot rows).
    for (int64_t out : {int64_t{1}, int64_t{2}, int64_t{5}, int64_t{10}}) {
      if (out == 10 && !pointwise) continue;
      const Layer layer = make_layer(ir::OpType::kConv2D, out, g.kernel, g.stride, g.dilation, g.pad);
      const std::string name = describe(dtype, std::string("Conv2D ") + g.name, g.input, out);
      const Net net = make_net(dtype, g.input, layer);
      // Calls of at most two output channels of a KxK Conv2D run the window
      // kernel, even with a workspace; wider ones im2col.
      auto whole_or_chunk_kernel = [&](int64_t width) {
        return !pointwise && width <= exec::kWindowDspMaxChannels ? "conv2d_window__dsp" : "conv2d_im2col__dsp";
      };
      cases.push_back({name + " whole", whole_or_chunk_kernel(out), net, Mode::kWhole, 0, true});
      cases.push_back({name + " rows of 2", "conv2d_im2col_rows__dsp", net, Mode::kRows, 2, true});
      for (int64_t tile : {int64_t{1}, int64_t{2}, int64_t{3}}) {
        if (tile > out) continue;
        cases.push_back({name + " chunks of " + std::to_string(tile), whole_or_chunk_kernel(tile), net,
                         Mode::kChannelChunks, tile, true});
      }
      // Over weights the plan stores widened: the _wide kernels (KxK: the
      // calls the window kernel does not take).
      if (pointwise || out > exec::kWindowDspMaxChannels) {
        cases.push_back({name + " whole, wide weights", "conv2d_im2col_wide__dsp", net, Mode::kWhole, 0, true, true});
      }
      cases.push_back(
          {name + " rows of 2, wide weights", "conv2d_im2col_wide_rows__dsp", net, Mode::kRows, 2, true, true});
      for (int64_t tile : {int64_t{1}, int64_t{2}, int64_t{3}}) {
        if (tile > out || (!pointwise && tile <= exec::kWindowDspMaxChannels)) continue;
        cases.push_back({name + " chunks of " + std::to_string(tile) + ", wide weights", "conv2d_im2col_wide__dsp",
                         net, Mode::kChannelChunks, tile, true, true});
      }
      if (!pointwise) continue;
      cases.push_back({name + " whole", "conv2d_1x1__dsp", net, Mode::kWhole});
      cases.push_back({name + " rows of 2", "conv2d_1x1_rows__dsp", net, Mode::kRows, 2});
      cases.push_back({name + " chunks of 1", "conv2d_1x1__dsp", net, Mode::kChannelChunks, 1});
      if (out > 6) cases.push_back({name + " chunks of 6", "conv2d_1x1__dsp", net, Mode::kChannelChunks, 6});
      for (int64_t tile : {int64_t{1}, int64_t{2}, int64_t{4}}) {
        if (tile > g.input[3]) continue;
        const std::string chunk = " accumulating input chunks of " + std::to_string(tile);
        cases.push_back({name + chunk, "conv2d_im2col_accumulate__dsp", net, Mode::kAccumulate, tile, true});
        cases.push_back({name + chunk, "conv2d_1x1_accumulate__dsp", net, Mode::kAccumulate, tile});
      }
    }
  }
  const ir::Shape grouped{1, 5, 4, 6};
  const Net grouped_3x3 = make_net(dtype, grouped, make_layer(ir::OpType::kConv2D, 9, 3, 2, 1, {1, 1, 1, 1}, 3));
  cases.push_back({describe(dtype, "Conv2D 3x3 stride 2 groups 3", grouped, 9) + " whole", "conv2d_im2col__dsp",
                   grouped_3x3, Mode::kWhole, 0, true});
  cases.push_back({describe(dtype, "Conv2D 3x3 stride 2 groups 3", grouped, 9) + " whole, wide weights",
                   "conv2d_im2col_wide__dsp", grouped_3x3, Mode::kWhole, 0, true, true});
  // A grouped 1x1: two groups of four input and four output channels.
  const ir::Shape grouped_1x1{1, 3, 4, 8};
  const Net grouped_pointwise = make_net(dtype, grouped_1x1, make_layer(ir::OpType::kConv2D, 8, 1, 1, 1, {}, 2));
  cases.push_back({describe(dtype, "Conv2D 1x1 groups 2", grouped_1x1, 8) + " whole", "conv2d_im2col__dsp",
                   grouped_pointwise, Mode::kWhole, 0, true});
  cases.push_back({describe(dtype, "Conv2D 1x1 groups 2", grouped_1x1, 8) + " whole, wide weights",
                   "conv2d_im2col_wide__dsp", grouped_pointwise, Mode::kWhole, 0, true, true});
  return cases;
}

std::vector<Case> make_depthwise_cases(ir::DType dtype) {
  struct Geometry {
    const char* name;
    int64_t kernel, stride, dilation;
    ir::Padding2D pad;
  };
  const Geometry geometries[] = {
      {"3x3 same", 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 stride 2", 3, 2, 1, {0, 1, 0, 1}},
      {"5x5 asymmetric", 5, 1, 1, {2, 1, 1, 2}},
      {"3x3 dilation 2", 3, 1, 2, {2, 2, 2, 2}},
      // Border rows with one window row in bounds, border columns with one tap.
      {"3x3 padding 2", 3, 1, 1, {2, 2, 2, 2}},
      {"1x1", 1, 1, 1, {}},
  };
  std::vector<Case> cases;
  for (const Geometry& g : geometries) {
    for (int64_t channels :
         {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{5}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{12}}) {
      const ir::Shape input{1, 5, 6, channels};
      const Layer layer = make_layer(ir::OpType::kDepthwiseConv2D, channels, g.kernel, g.stride, g.dilation, g.pad);
      const std::string name = describe(dtype, std::string("DepthwiseConv2D ") + g.name, input, channels);
      const Net net = make_net(dtype, input, layer);
      cases.push_back({name + " whole", "dwconv2d_direct__dsp", net, Mode::kWhole});
      cases.push_back({name + " rows of 2", "dwconv2d_direct_rows__dsp", net, Mode::kRows, 2});
      for (int64_t tile : {int64_t{1}, int64_t{3}, int64_t{5}}) {
        if (tile > channels) continue;
        // Chunks of one channel run the one-channel kernel (a last chunk of one of a wider tile does not).
        cases.push_back({name + " chunks of " + std::to_string(tile),
                         tile == 1 ? "dwconv2d_channel__dsp" : "dwconv2d_direct__dsp", net, Mode::kChannelChunks,
                         tile});
      }
      if (g.dilation == 1 && g.kernel == 3 && g.pad.top + g.pad.bottom < g.kernel && g.pad.left + g.pad.right < g.kernel) {
        // Written over its input (an output no larger), which a 1x1 Conv2D makes (a model input is not overwritten).
        Net chain;
        chain.dtype = dtype;
        const ir::TensorId p =
            chain.add_layer("pre", chain.add_input(input), make_layer(ir::OpType::kConv2D, channels, 1));
        chain.set_output(chain.add_layer("layer", p, layer));
        cases.push_back({name + " in place", "dwconv2d_direct_inplace__dsp", chain, Mode::kInPlace});
      }
    }
  }
  // Through channel planes (with their workspace): output rows of
  // kDepthwisePlanarMinCols and more, odd and even around the pairs of output
  // pixels, channel groups of four and not, chunks starting off a group,
  // padding on every side or none.
  const Geometry planar[] = {
      {"3x3 same", 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 valid", 3, 1, 1, {}},
      {"3x3 top left", 3, 1, 1, {2, 2, 0, 0}},
  };
  for (const Geometry& g : planar) {
    for (const ir::Shape& spatial : {ir::Shape{1, 5, 18, 0}, ir::Shape{1, 3, 19, 0}, ir::Shape{2, 4, 20, 0}}) {
      for (int64_t channels : {int64_t{1}, int64_t{4}, int64_t{7}, int64_t{8}, int64_t{12}}) {
        ir::Shape input = spatial;
        input[3] = channels;
        const Layer layer = make_layer(ir::OpType::kDepthwiseConv2D, channels, g.kernel, g.stride, g.dilation, g.pad);
        const std::string name = describe(dtype, std::string("DepthwiseConv2D planes ") + g.name, input, channels);
        const Net net = make_net(dtype, input, layer);
        cases.push_back({name + " whole", "dwconv2d_planar__dsp", net, Mode::kWhole, 0, true});
        for (int64_t tile : {int64_t{1}, int64_t{3}, int64_t{5}}) {
          if (tile > channels) continue;
          cases.push_back({name + " chunks of " + std::to_string(tile), "dwconv2d_planar__dsp", net,
                           Mode::kChannelChunks, tile, true});
        }
      }
    }
  }
  return cases;
}

std::vector<Case> make_fully_connected_cases(ir::DType dtype) {
  std::vector<Case> cases;
  // In: around the dot rows' steps of eight and four inputs and the ones left
  // over; Out: one block of four channels and one alone, or two blocks and a
  // pair; chunks of 6 start a block off the node's groups of four.
  for (int64_t batch : {int64_t{1}, int64_t{3}}) {
    for (int64_t in : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{7}, int64_t{12}, int64_t{15}, int64_t{16},
                       int64_t{33}}) {
      for (int64_t out : {int64_t{5}, int64_t{10}}) {
        const ir::Shape input{batch, in};
        Layer fc;
        fc.op = ir::OpType::kFullyConnected;
        fc.out_channels = out;
        fc.activation = batch == 3 ? conv_test::relu6() : ir::FusedActivation{};
        const std::string name = describe(dtype, "FullyConnected", input, fc.out_channels);
        const Net net = make_net(dtype, input, fc);
        cases.push_back({name + " whole", "fully_connected_direct__dsp", net, Mode::kWhole});
        cases.push_back({name + " chunks of 2", "fully_connected_direct__dsp", net, Mode::kChannelChunks, 2});
        if (out > 6) {
          cases.push_back({name + " chunks of 6", "fully_connected_direct__dsp", net, Mode::kChannelChunks, 6});
        }
        cases.push_back({name + " accumulating input chunks of 2", "fully_connected_direct_accumulate__dsp", net,
                         Mode::kAccumulate, std::min<int64_t>(2, in)});
        if (in >= 12) {
          cases.push_back({name + " accumulating input chunks of 9", "fully_connected_direct_accumulate__dsp", net,
                           Mode::kAccumulate, 9});
        }
      }
    }
  }
  Layer fc;
  fc.op = ir::OpType::kFullyConnected;
  fc.out_channels = 7;
  for (const ir::Shape& input : {ir::Shape{1, 3, 2, 5}, ir::Shape{2, 1, 1, 9}}) {
    cases.push_back({describe(dtype, "FullyConnected flattened", input, 7) + " whole", "fully_connected_direct__dsp",
                     make_net(dtype, input, fc, input[1] > 1), Mode::kWhole});
  }
  return cases;
}

// The segment kernels' fast paths (tinyfit/segment.h), each in both
// traversals at the distance the compiler derives: channels around the
// blocks of four and the pairs, windows at the borders, padding, stride,
// dilation (taps one at a time), batch rows, flattened features, and the
// fused inverted bottleneck with and without its residual, a stem expand,
// mid channels past a group of four.
std::vector<Case> make_segment_cases(ir::DType dtype) {
  std::vector<Case> cases;
  auto add_both = [&](const std::string& name, const std::string& kernel, const Net& net) {
    cases.push_back({name + " overlapped ascending", kernel, net, Mode::kOverlapAscending});
    cases.push_back({name + " overlapped descending", kernel, net, Mode::kOverlapDescending});
  };
  struct ConvGeometry {
    const char* name;
    ir::Shape input;
    int64_t kernel, stride, dilation;
    ir::Padding2D pad;
  };
  const ConvGeometry convs[] = {
      {"1x1", {1, 1, 1, 1}, 1, 1, 1, {}},
      {"1x1", {1, 2, 3, 5}, 1, 1, 1, {}},
      {"1x1", {2, 2, 2, 9}, 1, 1, 1, {}},
      {"1x1 stride 2", {1, 5, 4, 8}, 1, 2, 1, {}},
      {"3x3 same", {1, 5, 6, 3}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 stride 2", {1, 7, 6, 4}, 3, 2, 1, {0, 0, 1, 1}},
      {"5x5 asymmetric", {1, 6, 5, 2}, 5, 1, 1, {2, 1, 1, 2}},
      {"3x3 dilation 2", {1, 6, 7, 3}, 3, 1, 2, {2, 2, 2, 2}},
  };
  for (const ConvGeometry& g : convs) {
    for (int64_t out : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{7}}) {
      const Layer layer = make_layer(ir::OpType::kConv2D, out, g.kernel, g.stride, g.dilation, g.pad);
      add_both(describe(dtype, std::string("Conv2D ") + g.name, g.input, out), "conv2d_segment__dsp",
               make_net(dtype, g.input, layer));
    }
  }
  struct DepthwiseGeometry {
    const char* name;
    ir::Shape input;
    int64_t kernel, stride, dilation;
    ir::Padding2D pad;
  };
  // Channels around the groups of four and the blocks of sixteen.
  const DepthwiseGeometry depthwise[] = {
      {"3x3 same", {1, 5, 6, 1}, 3, 1, 1, {1, 1, 1, 1}},   {"3x3 same", {1, 4, 5, 7}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 stride 2", {1, 5, 4, 16}, 3, 2, 1, {0, 0, 1, 1}}, {"5x5 asymmetric", {1, 6, 5, 17}, 5, 1, 1, {2, 1, 1, 2}},
      {"3x3 dilation 2", {1, 6, 6, 21}, 3, 1, 2, {2, 2, 2, 2}}, {"3x3 batch 2", {2, 3, 3, 36}, 3, 1, 1, {1, 1, 1, 1}},
  };
  for (const DepthwiseGeometry& g : depthwise) {
    const Layer layer = make_layer(ir::OpType::kDepthwiseConv2D, g.input[3], g.kernel, g.stride, g.dilation, g.pad);
    add_both(describe(dtype, std::string("DepthwiseConv2D ") + g.name, g.input, g.input[3]), "dwconv2d_segment__dsp",
             make_net(dtype, g.input, layer));
  }
  for (const ir::Shape& input : {ir::Shape{1, 7}, ir::Shape{3, 5}, ir::Shape{2, 16}}) {
    for (int64_t out : {int64_t{2}, int64_t{5}}) {
      Layer fc;
      fc.op = ir::OpType::kFullyConnected;
      fc.out_channels = out;
      add_both(describe(dtype, "FullyConnected", input, out), "fully_connected_segment__dsp",
               make_net(dtype, input, fc));
    }
  }
  Layer flat;
  flat.op = ir::OpType::kFullyConnected;
  flat.out_channels = 6;
  add_both(describe(dtype, "FullyConnected flattened", {1, 3, 2, 5}, 6), "fully_connected_segment__dsp",
           make_net(dtype, {1, 3, 2, 5}, flat, true));
  struct Block {
    const char* name;
    ir::Shape input;
    conv_test::BottleneckConfig config;
  };
  const Block blocks[] = {
      {"residual", {1, 6, 5, 8}, {17, 8, 1, 1, 3, 1, true, true}},
      {"residual add(project, x)", {1, 4, 4, 4}, {24, 4, 1, 1, 3, 1, true, false}},
      {"stride 2", {1, 7, 6, 4}, {12, 6, 1, 1, 3, 2, false, true}},
      {"stem", {1, 9, 8, 3}, {16, 8, 3, 2, 3, 1, false, true}},
      {"7x7", {1, 5, 6, 5}, {9, 5, 1, 1, 7, 1, true, true}},
      {"1x1 image", {1, 1, 1, 4}, {8, 4, 1, 1, 3, 1, true, true}},
      {"batch 2", {2, 3, 4, 4}, {6, 4, 1, 1, 3, 1, true, true}},
      // Whole windows (3x3 unrolled, 5x5 in order) over groups of four, the
      // residual word by word and a short last block of the residual.
      {"3x3 whole windows", {1, 6, 6, 16}, {48, 16, 1, 1, 3, 1, true, true}},
      {"5x5 whole windows", {1, 7, 7, 8}, {16, 8, 1, 1, 5, 1, true, true}},
      // Whole window rows of five and seven taps written out, border windows'
      // rows two taps at a time (odd and even in-bounds columns).
      {"7x7 whole windows", {1, 9, 9, 8}, {20, 8, 1, 1, 7, 1, true, true}},
      {"7x7 stride 2", {1, 11, 10, 4}, {12, 6, 1, 1, 7, 2, false, true}},
      {"5x5 stride 2", {1, 9, 8, 4}, {8, 5, 1, 1, 5, 2, false, true}},
      {"residual short block", {1, 5, 5, 6}, {12, 6, 1, 1, 3, 1, true, false}},
      // A 1x1 expand's mids three at a time (segment_expand_group): groups
      // across row ends, seven input channels (the triple dot's tail of
      // three), mid channels past a block of four (the short block pixel by
      // pixel); output pixels three at a time too, with a residual and an odd
      // Cout. Pixel and mid counts of 1 and 2 mod 3 (a short last group),
      // 1-pixel rows, odd widths, input channels with tails of one and two.
      {"mid groups across rows", {1, 3, 5, 7}, {13, 7, 1, 1, 3, 1, true, true}},
      {"mid groups stride 2", {1, 5, 7, 6}, {10, 5, 1, 1, 3, 2, false, true}},
      {"1-pixel rows", {1, 5, 1, 6}, {10, 6, 1, 1, 3, 1, true, true}},
      {"ten pixels", {1, 2, 5, 5}, {11, 5, 1, 1, 3, 1, true, true}},
      {"one row of seven", {1, 1, 7, 9}, {14, 5, 1, 1, 3, 1, false, true}},
      {"1-pixel rows stride 2", {1, 7, 1, 10}, {20, 3, 1, 1, 3, 2, false, true}},
      // A stem's mids two at a time, both windows gathered with their padding
      // (segment_expand_group): windows of 27 (a tail of three), 9 (one
      // input channel: a tail of one), 18 (two) and 36 (none) elements, an
      // odd mid count whose last mid is alone, an odd mid channel count, a
      // 5x5 window of 50 elements over batch 2; 3x3 x 8 = 72 elements, past
      // TF_SEGMENT_PAIRED_WINDOW_MAX, pixel by pixel.
      {"stem odd mids", {1, 5, 9, 3}, {16, 8, 3, 2, 3, 1, false, true}},
      {"stem one channel", {1, 6, 7, 1}, {7, 4, 3, 2, 3, 1, false, true}},
      {"stem two channels", {1, 4, 5, 2}, {8, 3, 3, 1, 3, 1, false, true}},
      {"stem four channels", {1, 4, 4, 4}, {12, 4, 3, 1, 3, 1, true, true}},
      {"stem 5x5 batch 2", {2, 5, 6, 2}, {8, 2, 5, 1, 3, 1, true, false}},
      {"stem past the gathered window", {1, 5, 6, 8}, {12, 8, 3, 1, 3, 1, true, true}},
      // The pointwise stages' stores: an expand without an activation
      // (saturation only, no lane-wise clamp) and a projection with ReLU6
      // (clamped lane-wise), a 1x1 and a stem expand, odd mid and output
      // channel counts (the last channel alone).
      {"expand unclamped, project ReLU6", {1, 3, 5, 8}, {13, 7, 1, 1, 3, 1, false, true, {}, conv_test::relu6()}},
      {"stem unclamped, project ReLU6", {1, 5, 7, 3}, {9, 5, 3, 2, 3, 1, false, true, {}, conv_test::relu6()}},
  };
  for (const Block& block : blocks) {
    Net net;
    net.dtype = dtype;
    net.set_output(conv_test::add_inverted_bottleneck(net, "block", net.add_input(block.input), block.config));
    add_both(describe(dtype, std::string("inverted bottleneck ") + block.name, block.input, block.config.out_channels),
             "inverted_bottleneck_segment__dsp", net);
  }
  return cases;
}

// Float32 Conv2D through Winograd F(2x2, 3x3) (3x3, stride 1) and im2col +
// GEMM (the rest), with the workspaces the fastest primitive asks for: output
// rows and cols around Winograd's 2x2 tiles (odd sizes, a one-pixel image),
// padding on any side, channels around both kernels' blocks of four (calls of
// at least kFloatFastMinChannels), chunks starting inside a block and a last
// chunk of four, rows of 2 and 3 (partial tiles), groups.
std::vector<Case> make_float_conv_cases() {
  struct Geometry {
    const char* name;
    ir::Shape input;
    int64_t kernel, stride, dilation;
    ir::Padding2D pad;
  };
  const Geometry geometries[] = {
      {"3x3 same", {1, 5, 7, 3}, 3, 1, 1, {1, 1, 1, 1}},       // odd rows and cols: partial tiles
      {"3x3 same", {1, 4, 4, 8}, 3, 1, 1, {1, 1, 1, 1}},       // whole tiles
      {"3x3 valid", {2, 6, 5, 5}, 3, 1, 1, {}},                // batch 2, 4x3 outputs
      {"3x3 asymmetric", {1, 3, 6, 4}, 3, 1, 1, {0, 2, 1, 0}}, // padding on two sides only
      {"3x3 same", {1, 1, 1, 6}, 3, 1, 1, {1, 1, 1, 1}},       // one pixel
      {"3x3 stride 2", {1, 7, 6, 4}, 3, 2, 1, {1, 1, 1, 1}},
      {"5x5 stride 2 asymmetric", {1, 6, 5, 2}, 5, 2, 1, {2, 1, 1, 2}},
      {"3x3 dilation 2", {1, 6, 7, 3}, 3, 1, 2, {2, 2, 2, 2}},
      {"1x1", {1, 2, 3, 5}, 1, 1, 1, {}},
      {"2x2 valid stride 2", {1, 5, 5, 5}, 2, 2, 1, {}},
      // Narrow maps, padded on both sides: the window kernel's border columns
      // run down the rows whose window rows are all in bounds. Width 1 (no
      // interior column), width 2 over five channels (runs of 10 and 15), width
      // 3 with one interior column, padding 2 (the outer columns see one tap),
      // two images, and a stride-2 stem three columns wide.
      {"3x3 same width 1", {1, 4, 1, 3}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 same width 2", {1, 5, 2, 5}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 same width 3 rgb", {1, 6, 3, 3}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 padding 2 width 3", {1, 7, 3, 3}, 3, 1, 1, {2, 2, 2, 2}},
      {"3x3 same width 2 rgb", {2, 5, 2, 3}, 3, 1, 1, {1, 1, 1, 1}},
      {"3x3 stride 2 width 3 rgb", {1, 9, 3, 3}, 3, 2, 1, {1, 1, 1, 1}},
  };
  std::vector<Case> cases;
  for (const Geometry& g : geometries) {
    const bool winograd = g.kernel == 3 && g.stride == 1 && g.dilation == 1;
    const std::string kernel = winograd ? "conv2d_winograd" : "conv2d_im2col";
    for (int64_t out : {int64_t{4}, int64_t{6}, int64_t{9}}) {
      const Layer layer = make_layer(ir::OpType::kConv2D, out, g.kernel, g.stride, g.dilation, g.pad);
      const std::string name = describe(ir::DType::kF32, std::string("Conv2D ") + g.name, g.input, out);
      const Net net = make_net(ir::DType::kF32, g.input, layer);
      cases.push_back({name + " whole", kernel, net, Mode::kWhole, 0, true});
      for (int64_t rows : {int64_t{2}, int64_t{3}}) {
        cases.push_back({name + " rows of " + std::to_string(rows), kernel + "_rows", net, Mode::kRows, rows, true});
      }
      for (int64_t tile : {int64_t{4}, int64_t{5}}) {
        if (tile >= out) continue;
        cases.push_back({name + " chunks of " + std::to_string(tile), kernel, net, Mode::kChannelChunks, tile, true});
      }
    }
  }
  const ir::Shape grouped{1, 5, 4, 6};
  cases.push_back({describe(ir::DType::kF32, "Conv2D 3x3 groups 3", grouped, 9) + " whole", "conv2d_im2col",
                   make_net(ir::DType::kF32, grouped, make_layer(ir::OpType::kConv2D, 9, 3, 1, 1, {1, 1, 1, 1}, 3)),
                   Mode::kWhole, 0, true});
  return cases;
}

std::vector<Case> make_all_cases() {
  std::vector<Case> cases;
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    for (auto make : {make_conv_cases, make_depthwise_cases, make_fully_connected_cases, make_segment_cases}) {
      for (Case& c : make(dtype)) cases.push_back(std::move(c));
    }
  }
  for (Case& c : make_float_conv_cases()) cases.push_back(std::move(c));
  return cases;
}

TEST(ConvDspKernels, Conv2DMatchesTheReferenceInEveryModeAndEdgeSize) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    for (const Case& c : make_conv_cases(dtype)) expect_case_runs_its_kernel_and_matches(c);
  }
}

TEST(ConvDspKernels, DepthwiseConv2DMatchesTheReferenceInEveryModeAndEdgeSize) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    for (const Case& c : make_depthwise_cases(dtype)) expect_case_runs_its_kernel_and_matches(c);
  }
}

TEST(ConvDspKernels, FullyConnectedMatchesTheReferenceInEveryModeAndEdgeSize) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    for (const Case& c : make_fully_connected_cases(dtype)) expect_case_runs_its_kernel_and_matches(c);
  }
}

TEST(ConvDspKernels, FloatConv2DPrimitivesMatchTheReferenceInEveryModeAndEdgeSize) {
  for (const Case& c : make_float_conv_cases()) expect_case_runs_its_kernel_and_matches(c);
}

TEST(ConvDspKernels, SegmentKernelsMatchTheReferenceOverlappedAtTheirDistance) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    for (const Case& c : make_segment_cases(dtype)) expect_case_runs_its_kernel_and_matches(c);
  }
}

// The same depthwise case given its workspace: the channel-plane kernel.
Case with_planes(Case c) {
  c.kernel = "dwconv2d_planar__dsp";
  c.workspaces = true;
  return c;
}

// A channel whose weights are all zero, as quantisers leave a dead channel:
// a tiny weight scale (a right shift near 28) and a bias near 2^30, the
// accumulator requantize.h cannot double (found in vww_96_int8, whose 1x1
// layers ran the direct loops for it). The binding restates the channel as
// the constant it computes, so the __dsp kernels take the layer, exactly.
TEST(ConvDspKernels, ALayerWithADeadChannelStillRunsItsDspKernelExactly) {
  for (ir::OpType op : {ir::OpType::kConv2D, ir::OpType::kDepthwiseConv2D}) {
    const bool depthwise = op == ir::OpType::kDepthwiseConv2D;
    const ir::Shape input{1, 4, depthwise ? kDepthwisePlanarMinCols : 5, 8};  // planes: their narrowest rows
    Case c{depthwise ? "DepthwiseConv2D 3x3 with a dead channel" : "Conv2D 1x1 with a dead channel",
           depthwise ? "dwconv2d_direct__dsp" : "conv2d_1x1__dsp",
           make_net(ir::DType::kI8, input, make_layer(op, 8, depthwise ? 3 : 1, 1, 1, depthwise ? ir::Padding2D{1, 1, 1, 1}
                                                                                              : ir::Padding2D{}))};
    const ir::Node& node = c.net.graph.nodes[0];
    ir::Tensor& weights = c.net.graph.tensor(node.inputs[1]);
    const size_t channels = 8;
    for (size_t i = 0; i < weights.data.size(); ++i) {
      if ((depthwise ? i % channels : i / (weights.data.size() / channels)) == 0) weights.data[i] = 0;
    }
    weights.quant->scale[0] = 1e-9f;  // 2^-30 of the others: a right shift of 28 after the doubling
    for (int32_t bias : {int32_t{1} << 30, -(int32_t{1} << 30) + 7}) {
      std::memcpy(c.net.graph.tensor(node.inputs[2]).data.data(), &bias, sizeof bias);
      expect_case_runs_its_kernel_and_matches(c);
      if (depthwise) expect_case_runs_its_kernel_and_matches(with_planes(c));
    }
  }
}

// A channel whose weight scale is 0 (multiplier 0) but whose weights are not
// and whose bias is near the int32 limits, as in mcunet-5fps_vww's expansion
// layers (which ran the direct loops for it): every sum requantises to 0,
// so the channel does not keep the layer from its __dsp kernel.
TEST(ConvDspKernels, AChannelOfMultiplierZeroStillRunsItsDspKernelExactly) {
  for (ir::OpType op : {ir::OpType::kConv2D, ir::OpType::kDepthwiseConv2D}) {
    const bool depthwise = op == ir::OpType::kDepthwiseConv2D;
    const ir::Shape input{1, 4, depthwise ? kDepthwisePlanarMinCols : 5, 8};  // planes: their narrowest rows
    Case c{depthwise ? "DepthwiseConv2D 3x3 with a zero-scale channel" : "Conv2D 1x1 with a zero-scale channel",
           depthwise ? "dwconv2d_direct__dsp" : "conv2d_1x1__dsp",
           make_net(ir::DType::kI8, input, make_layer(op, 8, depthwise ? 3 : 1, 1, 1, depthwise ? ir::Padding2D{1, 1, 1, 1}
                                                                                              : ir::Padding2D{}))};
    const ir::Node& node = c.net.graph.nodes[0];
    c.net.graph.tensor(node.inputs[1]).quant->scale[0] = 0.0f;
    for (int32_t bias : {int32_t{2147483000}, int32_t{-2147483000}}) {
      std::memcpy(c.net.graph.tensor(node.inputs[2]).data.data(), &bias, sizeof bias);
      expect_case_runs_its_kernel_and_matches(c);
      if (depthwise) expect_case_runs_its_kernel_and_matches(with_planes(c));
    }
  }
}

// A channel with a negative weight scale (a negative multiplier), as in
// MCUNet-320KB-ImageNet's tflite stem (which ran the direct loops for it):
// the binding negates the channel's weights, bias and multiplier, so the
// __dsp kernels take the layer and requantise exactly TFLite's product. A
// weight of -128 does not negate in int8: then the direct loops, exactly.
TEST(ConvDspKernels, ANegativeScaleChannelRunsItsDspKernelExactlyWhenItsWeightsNegate) {
  for (ir::OpType op : {ir::OpType::kConv2D, ir::OpType::kDepthwiseConv2D}) {
    const bool depthwise = op == ir::OpType::kDepthwiseConv2D;
    const ir::Shape input{1, 4, depthwise ? kDepthwisePlanarMinCols : 5, 8};  // planes: their narrowest rows
    for (int64_t kernel : {int64_t{1}, int64_t{3}}) {
      if (depthwise && kernel == 1) continue;
      Case c{std::string(depthwise ? "DepthwiseConv2D" : "Conv2D") + " " + std::to_string(kernel) + "x" +
                 std::to_string(kernel) + " with negative-scale channels",
             depthwise ? "dwconv2d_direct__dsp" : kernel == 1 ? "conv2d_1x1__dsp" : "conv2d_im2col__dsp",
             make_net(ir::DType::kI8, input,
                      make_layer(op, 8, kernel, 1, 1, kernel == 3 ? ir::Padding2D{1, 1, 1, 1} : ir::Padding2D{}))};
      c.workspaces = kernel == 3 && !depthwise;  // im2col's columns
      const ir::Node& node = c.net.graph.nodes[0];
      ir::Tensor& weights = c.net.graph.tensor(node.inputs[1]);
      const size_t channels = 8, taps = weights.data.size() / channels;
      for (size_t channel : {size_t{0}, size_t{5}}) {
        weights.quant->scale[channel] = -weights.quant->scale[channel];
        for (size_t t = 0; t < taps; ++t) {  // TFLite's symmetric weights: -127..127
          uint8_t& w = weights.data[depthwise ? t * channels + channel : channel * taps + t];
          if (w == 0x80u) w = 0x81u;
        }
      }
      expect_case_runs_its_kernel_and_matches(c);
      if (depthwise) expect_case_runs_its_kernel_and_matches(with_planes(c));
      // Channel 5's first weight -128: that channel cannot be negated.
      weights.data[depthwise ? 5 : 5 * taps] = 0x80u;
      c.kernel = depthwise ? "dwconv2d_direct" : "conv2d_direct";
      expect_case_runs_its_kernel_and_matches(c);
    }
  }
}

// runtime/kernels.def: a fast kernel without cases here would run untested.
TEST(ConvDspKernels, EveryFastKernelOfKernelsDefHasCases) {
  std::ifstream def(std::string(TINYFIT_SOURCE_DIR) + "/runtime/kernels.def");
  ASSERT_TRUE(def.good());
  std::set<std::string> listed, covered;
  for (std::string line; std::getline(def, line);) {
    const size_t begin = line.find("TINYFIT_KERNEL(");
    const size_t end = line.find(',');
    if (begin == std::string::npos || end == std::string::npos) continue;
    const std::string name = line.substr(begin + 15, end - begin - 15);
    if (name.ends_with("__dsp") || name.starts_with("tf_f32_conv2d_im2col") ||
        name.starts_with("tf_f32_conv2d_winograd")) {
      listed.insert(name);
    }
  }
  for (const Case& c : make_all_cases()) covered.insert("tf_" + dtype_token(c.net.dtype) + "_" + c.kernel);
  EXPECT_FALSE(listed.empty());
  EXPECT_EQ(listed, covered);
}

}  // namespace
}  // namespace tinyfit::exec
