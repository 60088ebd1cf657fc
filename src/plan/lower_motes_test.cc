// Apply: row schemes lowered to a plan, on a hand-built chain whose memory is
// worked out by hand.
#include "plan/lower_motes.h"

#include <gtest/gtest.h>

#include "ir/op_decl.h"
#include "partition/acg.h"
#include "plan/build_plan.h"
#include "plan/lower_row_loop_overlap.h"
#include "plan/plan_macs.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"
#include "support/test_graph.h"

namespace tinyfit::plan {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

// x 1x16x16x4 -> 3x3 convolutions (padding 1) to 16, 16 and 4 channels
// (f32), then a Sigmoid of the last: operators 0..3. x and the last two
// tensors are 4 KiB, the middle ones 16 KiB each.
TestGraph make_chain() {
  TestGraph g;
  ir::TensorId t = g.input({1, 16, 16, 4});
  for (int64_t channels : {16, 16, 4}) {
    const int64_t in_channels = g.graph.tensor(t).shape[3];
    t = g.node(OpType::kConv2D, {t, g.constant({channels, 3, 3, in_channels})}, make_conv_attrs(3, 1, 1));
  }
  g.output(g.node(OpType::kSigmoid, {t}));
  return g;
}

partition::PartitionScheme make_rows_scheme(const TestGraph& g, const analysis::BufferGraph& bg,
                                            std::vector<int> operators, int64_t tile) {
  const partition::AxisConnectingGraph acg = partition::build_acg(g.graph);
  Result<partition::PartitionScheme> scheme =
      partition::make_partition_scheme(g.graph, bg, acg, std::move(operators), partition::PartitionAxis::kRows, tile);
  EXPECT_TRUE(scheme) << scheme.error().message;
  return scheme ? *scheme : partition::PartitionScheme{};
}

TEST(BuildMotesPlan, ARowSchemeRunsAsOneLoopWithoutRecomputation) {
  const TestGraph g = make_chain();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const std::vector<partition::PartitionScheme> schemes = {make_rows_scheme(g, bg, {0, 1, 2}, 2)};
  MotesPlanOptions options;
  options.order = "given";
  Result<MotesPlan> lowered = build_motes_plan(g.graph, bg, analysis::given_order(bg), schemes, options);
  ASSERT_TRUE(lowered) << lowered.error().format();
  const Status valid = verify_plan(g.graph, lowered->plan);
  EXPECT_TRUE(valid) << valid.error().message;
  EXPECT_EQ(count_plan_macs(g.graph, lowered->plan), ir::count_graph_macs(g.graph));
  EXPECT_EQ(lowered->plan.techniques, (std::vector<std::string>{"motes"}));
  EXPECT_EQ(lowered->order, (analysis::Order{0, 1, 2, 3}));
  int loops = 0;
  for (const Step& step : lowered->plan.steps) loops += step.is_loop() ? 1 : 0;
  EXPECT_EQ(loops, 1);
  // Whole operators: the two 16 KiB tensors while the second convolution
  // runs. With the loop, x and the loop's output (4 KiB each) are whole; the
  // two 16 KiB tensors are held at most 4 rows (1 KiB each) at a time: two
  // rows of a tile and the two the next 3x3 window reads again.
  const int64_t whole_peak = compute_plan_memory(build_operator_plan(g.graph, bg, analysis::given_order(bg))).peak_bytes;
  EXPECT_EQ(whole_peak, 2 * 16384);
  EXPECT_LE(compute_plan_memory(lowered->plan).peak_bytes, 4096 + 4096 + 2 * 4 * 1024);
}

TEST(BuildMotesPlan, WithRowOverlapsTheLoopWritesItsOutputOverTheConsumedModelInput) {
  // x (16 rows of 256 bytes) is read only by the loop, whose output (16 rows
  // of 256 bytes, read by the Sigmoid after it) may start below x and
  // overwrite the rows of x the first convolution's windows are done with.
  const TestGraph g = make_chain();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const std::vector<partition::PartitionScheme> schemes = {make_rows_scheme(g, bg, {0, 1, 2}, 2)};
  MotesPlanOptions options;
  options.order = "given";
  Result<MotesPlan> plain = build_motes_plan(g.graph, bg, analysis::given_order(bg), schemes, options);
  options.row_overlaps = true;
  Result<MotesPlan> lowered = build_motes_plan(g.graph, bg, analysis::given_order(bg), schemes, options);
  ASSERT_TRUE(plain && lowered);
  const Status valid = verify_plan(g.graph, lowered->plan);
  EXPECT_TRUE(valid) << valid.error().message;
  EXPECT_EQ(lowered->plan.techniques, (std::vector<std::string>{"motes", "rowoverlap"}));
  EXPECT_EQ(lowered->plan.count_calls(), plain->plan.count_calls());
  EXPECT_EQ(count_plan_macs(g.graph, lowered->plan), ir::count_graph_macs(g.graph));
  const Loop& loop = lowered->plan.steps.front().loop();
  ASSERT_EQ(loop.overlaps.size(), 1u);
  const LoopOverlap& overlap = loop.overlaps.front();
  EXPECT_EQ(overlap.input, lowered->plan.inputs[0]);
  const std::optional<int64_t> limit = compute_row_loop_overlap_limit(lowered->plan, loop, overlap.input, overlap.output);
  ASSERT_TRUE(limit.has_value());
  // The producers run ahead of the sink by their windows' reach, so by the
  // time the sink writes a row of its output, x's rows up to the next one
  // are read for the last time: the output may start one row above x. It
  // starts where x starts, which shares all 4096 bytes as well.
  EXPECT_EQ(*limit, 256);
  EXPECT_EQ(overlap.offset_bytes, 0);
  // The pair shares 4096 bytes, all of them off the loop's peak.
  EXPECT_EQ(compute_plan_memory(lowered->plan).peak_bytes, compute_plan_memory(plain->plan).peak_bytes - 4096);
}

TEST(BuildMotesPlan, OperatorsOutsideTheLoopsMayRunInPlace) {
  // The Sigmoid may overwrite the loop's output (its only reader), which
  // dies there: the output buffer is then shared.
  const TestGraph g = make_chain();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const std::vector<partition::PartitionScheme> schemes = {make_rows_scheme(g, bg, {0, 1, 2}, 2)};
  MotesPlanOptions options;
  options.inplace = true;
  Result<MotesPlan> lowered = build_motes_plan(g.graph, bg, analysis::given_order(bg), schemes, options);
  ASSERT_TRUE(lowered) << lowered.error().format();
  const Status valid = verify_plan(g.graph, lowered->plan);
  EXPECT_TRUE(valid) << valid.error().message;
  EXPECT_EQ(lowered->plan.techniques, (std::vector<std::string>{"motes", "inplace"}));
  const KernelCall& sigmoid = lowered->plan.steps.back().call();
  EXPECT_EQ(sigmoid.inputs[0].buffer, sigmoid.outputs[0].buffer);
}

TEST(BuildMotesPlan, NoSchemeIsTheSearchedOrdersPlan) {
  const TestGraph g = make_chain();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  Result<MotesPlan> lowered = build_motes_plan(g.graph, bg, analysis::given_order(bg), {}, MotesPlanOptions{});
  ASSERT_TRUE(lowered) << lowered.error().format();
  EXPECT_EQ(lowered->plan.count_calls(), 4);
  EXPECT_EQ(compute_plan_memory(lowered->plan).peak_bytes, 2 * 16384);  // the two 16 KiB tensors
}

// x [1, 32, 4, 2] f32 -> Conv2D 3x3 stride 2 pad 1 (4 channels, 16 rows) ->
// DepthwiseConv2D 3x3 pad 1 -> Conv2D 1x1 (6 channels) -> DepthwiseConv2D 3x3
// stride 2 pad 1 (8 rows) -> Conv2D 1x1 (3 channels): producers before a
// stride-2 window, at twice the sink's rows (lower_row_loop_test.cc).
TestGraph make_half_rate_chain() {
  TestGraph g;
  ir::TensorId t = g.input({1, 32, 4, 2});
  t = g.node(OpType::kConv2D, {t, g.constant({4, 3, 3, 2})}, make_conv_attrs(3, 2, 1));
  t = g.node(OpType::kDepthwiseConv2D, {t, g.constant({1, 3, 3, 4})}, make_conv_attrs(3, 1, 1));
  t = g.node(OpType::kConv2D, {t, g.constant({6, 1, 1, 4})}, make_conv_attrs(1));
  t = g.node(OpType::kDepthwiseConv2D, {t, g.constant({1, 3, 3, 6})}, make_conv_attrs(3, 2, 1));
  g.output(g.node(OpType::kConv2D, {t, g.constant({3, 1, 1, 6})}, make_conv_attrs(1)));
  return g;
}

Result<MotesPlan> lower_whole_chain(const TestGraph& g, const analysis::BufferGraph& bg, bool producer_rates) {
  std::vector<int> operators(bg.operators.size());
  for (size_t op = 0; op < operators.size(); ++op) operators[op] = static_cast<int>(op);
  MotesPlanOptions options;
  options.order = "given";
  options.producer_rates = producer_rates;
  return build_motes_plan(g.graph, bg, analysis::given_order(bg), {make_rows_scheme(g, bg, operators, 1)}, options);
}

TEST(BuildMotesPlan, SaysWhetherALoopWalksSeveralStepsPerSinkRow) {
  // Before a stride-2 window the producers run at their own rate: fewer
  // rows held (lower_row_loop_test.cc), so the lowering takes rate 2.
  const TestGraph half = make_half_rate_chain();
  const analysis::BufferGraph half_bg = analysis::build_buffer_graph(half.graph);
  const Result<MotesPlan> two_rates = lower_whole_chain(half, half_bg, true);
  ASSERT_TRUE(two_rates) << two_rates.error().format();
  EXPECT_TRUE(two_rates->walks_producer_rates);
  const Result<MotesPlan> one_rate = lower_whole_chain(half, half_bg, false);
  ASSERT_TRUE(one_rate) << one_rate.error().format();
  EXPECT_FALSE(one_rate->walks_producer_rates);
  EXPECT_GT(two_rates->plan.count_calls(), one_rate->plan.count_calls());
  // Every window at stride 1: no second rate, the same plan as without.
  const TestGraph chain = make_chain();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(chain.graph);
  const Result<MotesPlan> asked = lower_whole_chain(chain, bg, true);
  ASSERT_TRUE(asked) << asked.error().format();
  EXPECT_FALSE(asked->walks_producer_rates);
  const Result<MotesPlan> plain = lower_whole_chain(chain, bg, false);
  ASSERT_TRUE(plain) << plain.error().format();
  EXPECT_EQ(asked->plan.count_calls(), plain->plan.count_calls());
  EXPECT_EQ(compute_plan_memory(asked->plan).peak_bytes, compute_plan_memory(plain->plan).peak_bytes);
}

}  // namespace
}  // namespace tinyfit::plan
