#include "exec/plan_work.h"

#include <gtest/gtest.h>

#include "analysis/buffer_graph.h"
#include "plan/build_plan.h"
#include "support/inverted_bottleneck_nets.h"
#include "support/overlap_plans.h"
#include "support/test_graph.h"

namespace tinyfit::exec {
namespace {

// One float Conv2D: input [1,4,4,2], 3x3 kernel, padding 1, 3 output channels.
ir::Graph make_conv_graph() {
  testing::TestGraph g;
  ir::ConvAttrs a;
  a.kernel_h = a.kernel_w = 3;
  a.pad = {1, 1, 1, 1};
  g.graph.outputs = {g.node(ir::OpType::kConv2D, {g.input({1, 4, 4, 2}), g.constant({3, 3, 3, 2})}, a)};
  return std::move(g.graph);
}

plan::Plan make_ordinary_plan(const ir::Graph& graph) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  return plan::build_operator_plan(graph, bg, analysis::given_order(bg));
}

TEST(CountPlanWork, AnOrdinaryCallIsOneRuntimeCallOfItsKernel) {
  const ir::Graph graph = make_conv_graph();
  const Result<cost::PlanWork> work = count_plan_work(graph, make_ordinary_plan(graph));
  ASSERT_TRUE(work) << work.error().format();
  ASSERT_EQ(work->kernels.size(), 1u);
  const cost::FeatureVector& f = work->kernels.at("tf_f32_conv2d_direct");
  EXPECT_EQ(cost::at(f, cost::Feature::kCalls), 1);
  EXPECT_EQ(cost::at(f, cost::Feature::kElements), 48);       // 4 x 4 x 3
  EXPECT_EQ(cost::at(f, cost::Feature::kReadElements), 32);   // 4 x 4 x 2
  EXPECT_EQ(cost::at(work->run, cost::RunFeature::kRuns), 1);
  EXPECT_EQ(cost::at(work->run, cost::RunFeature::kLoops), 0);
}

TEST(CountPlanWork, ALoopCountsEveryIterationWithItsOwnChunk) {
  const ir::Graph graph = make_conv_graph();
  plan::Plan plan = make_ordinary_plan(graph);
  plan::KernelCall call = plan.steps.front().call();
  call.mode = plan::CallMode::kChunk;
  call.outputs.front() = plan::follow_chunk(call.outputs.front(), 0, 3, 3, false);
  plan::Loop loop;
  loop.name = "channels";
  loop.axis = plan::LoopAxis::kChannels;
  loop.extent = 3;
  loop.tile = 2;  // chunks [0, 2) and [2, 3)
  loop.body.push_back(plan::Step{call});
  plan.steps.front().what = loop;
  const Result<cost::PlanWork> work = count_plan_work(graph, plan);
  ASSERT_TRUE(work) << work.error().format();
  const cost::FeatureVector& f = work->kernels.at("tf_f32_conv2d_direct");
  EXPECT_EQ(cost::at(f, cost::Feature::kCalls), 2);
  EXPECT_EQ(cost::at(f, cost::Feature::kLoopCalls), 2);
  EXPECT_EQ(cost::at(f, cost::Feature::kElements), 48);        // 32 + 16: every element once
  EXPECT_EQ(cost::at(f, cost::Feature::kChannelBlocks), 48);   // 16 pixels x (2 + 1) single channels
  EXPECT_EQ(cost::at(work->run, cost::RunFeature::kLoops), 1);
  EXPECT_EQ(cost::at(work->run, cost::RunFeature::kLoopIterations), 2);
}

TEST(CountPlanWork, AFusedCallDoesTheWorkOfEachOfItsNodesWhole) {
  // expand 1x1 to 12 channels, depthwise 3x3 stride 2, project to 6 channels
  // over a [1,7,6,4] int8 input: one call of the fused segment kernel.
  conv_test::Net net;
  net.dtype = ir::DType::kI8;
  net.add_input({1, 7, 6, 4});
  net.set_output(conv_test::add_inverted_bottleneck(net, "block", net.graph.inputs[0], {12, 6, 1, 1, 3, 2, false, true}));
  const Result<plan::Plan> plan = plan::testing::make_one_call_overlap_plan(net.graph, plan::Traversal::kAscending);
  ASSERT_TRUE(plan) << plan.error().format();
  const Result<cost::PlanWork> work = count_plan_work(net.graph, *plan);
  ASSERT_TRUE(work) << work.error().format();
  ASSERT_EQ(work->kernels.size(), 1u);
  const cost::FeatureVector& f = work->kernels.at("tf_qs8_inverted_bottleneck_segment__dsp");
  EXPECT_EQ(cost::at(f, cost::Feature::kCalls), 3);  // one per node
  // 7x6x12 expanded + 4x3x12 depthwise (SAME, stride 2) + 4x3x6 projected elements.
  EXPECT_EQ(cost::at(f, cost::Feature::kElements), 504 + 144 + 72);
  // Every MAC is in bounds or on padding, once: the nodes' MACs in all.
  EXPECT_DOUBLE_EQ(cost::at(f, cost::Feature::kInboundWork) + cost::at(f, cost::Feature::kPaddedWork),
                   static_cast<double>(ir::count_graph_macs(net.graph)));
  // Each stage's counts apart (their MACs cost differently with SIMD).
  EXPECT_EQ(cost::at(f, cost::Feature::kMidPixels), 7 * 6);
  EXPECT_EQ(cost::at(f, cost::Feature::kExpandWork), 7 * 6 * 12 * 4);
  EXPECT_EQ(cost::at(f, cost::Feature::kExpandElements), 504);
  // Depthwise SAME 3x3 stride 2 over 7x6 (pads: rows 1/1, cols 0/1): the 4
  // output rows see 2,3,3,2 window rows, the 3 cols 3,3,2: 10 x 8 in-bounds
  // taps, 12 channels each.
  EXPECT_EQ(cost::at(f, cost::Feature::kDepthwiseTaps), 10 * 8);
  EXPECT_EQ(cost::at(f, cost::Feature::kDepthwiseWork), 10 * 8 * 12);
  EXPECT_EQ(cost::at(f, cost::Feature::kDepthwiseElements), 144);
  EXPECT_EQ(cost::at(f, cost::Feature::kProjectWork), 72 * 12);
  EXPECT_EQ(cost::at(f, cost::Feature::kProjectElements), 72);
  EXPECT_EQ(cost::at(f, cost::Feature::kResidualElements), 0);
}

TEST(CountPlanWork, AFusedResidualBlockCountsItsAdd) {
  conv_test::Net net;
  net.dtype = ir::DType::kI8;
  net.add_input({1, 5, 5, 8});
  net.set_output(conv_test::add_inverted_bottleneck(net, "block", net.graph.inputs[0], {24, 8, 1, 1, 3, 1, true, true}));
  const Result<plan::Plan> plan = plan::testing::make_one_call_overlap_plan(net.graph, plan::Traversal::kAscending);
  ASSERT_TRUE(plan) << plan.error().format();
  const Result<cost::PlanWork> work = count_plan_work(net.graph, *plan);
  ASSERT_TRUE(work) << work.error().format();
  ASSERT_EQ(work->kernels.size(), 1u);
  const cost::FeatureVector& f = work->kernels.begin()->second;
  EXPECT_EQ(cost::at(f, cost::Feature::kMidPixels), 25);
  EXPECT_EQ(cost::at(f, cost::Feature::kDepthwiseTaps), 13 * 13);  // 2+3+3+3+2 per axis
  EXPECT_EQ(cost::at(f, cost::Feature::kDepthwiseWork), 13 * 13 * 24);
  EXPECT_EQ(cost::at(f, cost::Feature::kProjectElements), 200);
  EXPECT_EQ(cost::at(f, cost::Feature::kResidualElements), 200);
}

}  // namespace
}  // namespace tinyfit::exec
