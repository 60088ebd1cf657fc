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
  const cost::FeatureVector& f = work->kernels.at("tf_qs8_inverted_bottleneck_segment");
  EXPECT_EQ(cost::at(f, cost::Feature::kCalls), 3);  // one per node
  // 7x6x12 expanded + 4x3x12 depthwise (SAME, stride 2) + 4x3x6 projected elements.
  EXPECT_EQ(cost::at(f, cost::Feature::kElements), 504 + 144 + 72);
  // Every MAC is in bounds or on padding, once: the nodes' MACs in all.
  EXPECT_DOUBLE_EQ(cost::at(f, cost::Feature::kInboundWork) + cost::at(f, cost::Feature::kPaddedWork),
                   static_cast<double>(ir::count_graph_macs(net.graph)));
}

}  // namespace
}  // namespace tinyfit::exec
