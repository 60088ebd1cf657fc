// Row loops (plan/lower_row_loop.h) as plans: what a loop's views show, how
// high its carried buffers are, its memory and MACs worked out by hand; and
// verify_plan's nested, windowed and carried rules, each rejecting a plan
// broken in its own way. Execution against the reference is in
// src/exec/row_loop_execution_test.cc.
#include "plan/lower_row_loop.h"

#include <gtest/gtest.h>

#include <sstream>

#include "analysis/memory_profile.h"
#include "plan/plan_macs.h"
#include "plan/plan_memory.h"
#include "plan/print_plan.h"
#include "plan/verify_plan.h"
#include "support/test_graph.h"

namespace tinyfit::plan {
namespace {

using testing::make_conv_attrs;

struct Lowered {
  ir::Graph graph;
  analysis::BufferGraph bg;
  Plan plan;
};

// Lowers every operator of `graph` as one row loop of `tile` rows.
Lowered lower_all(ir::Graph graph, int64_t tile) {
  Lowered l{std::move(graph), {}, {}};
  l.bg = analysis::build_buffer_graph(l.graph);
  RowLoopSpec spec;
  for (size_t op = 0; op < l.bg.operators.size(); ++op) spec.ops.push_back(static_cast<int>(op));
  spec.tile = tile;
  Result<Plan> plan = build_row_loop_plan(l.graph, l.bg, analysis::given_order(l.bg), {spec});
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().format());
  if (plan) l.plan = std::move(*plan);
  return l;
}

// x [1, 8, 4, 2] f32 -> c: Conv2D 3x3 pad 1 (3 channels) -> d:
// DepthwiseConv2D 3x3 pad 1 -> y [1, 8, 4, 3].
ir::Graph make_conv_depthwise_chain() {
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 8, 4, 2});
  const ir::TensorId c = g.node(ir::OpType::kConv2D, {x, g.constant({3, 3, 3, 2})}, make_conv_attrs(3, 1, 1), "c");
  g.output(g.node(ir::OpType::kDepthwiseConv2D, {c, g.constant({1, 3, 3, 3})}, make_conv_attrs(3, 1, 1), "d"));
  return std::move(g.graph);
}

TEST(RowLoop, DumpShowsWindowsCarriedRowsAndTheirBlockConcat) {
  const Lowered l = lower_all(make_conv_depthwise_chain(), 2);
  std::ostringstream out;
  print_plan(out, l.graph, l.plan);
  // d computes its chunk [b0, e0) of 8 rows. Its 3-row window with padding 1
  // reads c's rows [b0 - 1, e0 + 1) (MemoriaNova eq. 1), so c computes up to
  // clamp(e0 + 1) and keeps from clamp(b0 - 1, 0, 7). Over the iterations
  // (chunks [0,2) [2,4) [4,6) [6,8)) c's buffer holds rows [0,3) [1,5) [3,7)
  // [5,8): 4 rows of 4 x 3 floats = 192 bytes, ending at position 4 (from
  // H(e) - 4). The copy moves [keep, H(b)) from the last iteration's place
  // (from H(b) - 4). c reads x's rows [b0, e0 + 2): its window of its rows
  // (the first bound's high end, 7, is the window of row 8). x (256 bytes)
  // and y (384) are whole; everything is live in the loop: peak 256 + 192 +
  // 384 = 832. Names: x is t0, c's output t2, d's t4 (t1, t3: weights).
  EXPECT_EQ(out.str(),
            "plan: 3 buffers, 1 steps, 12 kernel calls per inference, peak 832 bytes, arena 0 bytes, techniques: "
            "rows\n"
            "buffers (lifetime in positions p, inclusive):\n"
            "  b0  carried  f32  192 bytes  @-        p0..p2  t2:rows\n"
            "  b1  input    f32  256 bytes  @-        p0..p2  t0\n"
            "  b2  output   f32  384 bytes  @-        p0..p2  t4\n"
            "steps:\n"
            "  loop rows-0: 4 iterations over 8 rows, tile 2, chunk [b0, e0)\n"
            "    p0  (copy) copy  in: b0 1x8x4x3 /48,12,3,1 axis 1 [clamp(b0-1, 0, 7), clamp(b0+1, 0, 8)) from "
            "clamp(b0-3, -4, 4)  out: b0 1x8x4x3 /48,12,3,1 axis 1 [clamp(b0-1, 0, 7), clamp(b0+1, 0, 8)) from "
            "clamp(e0-3, -4, 4)\n"
            "    p1  c (Conv2D) whole  in: b1 1x8x4x2 /64,8,2,1 axis 1 [clamp(b0, 0, 7), clamp(e0+2, 0, 8))  out: b0 "
            "1x8x4x3 /48,12,3,1 axis 1 [clamp(b0+1, 0, 8), clamp(e0+1, 0, 8)) from clamp(e0-3, -4, 4)\n"
            "    p2  d (DepthwiseConv2D) whole  in: b0 1x8x4x3 /48,12,3,1 axis 1 [clamp(b0-1, 0, 7), clamp(e0+1, 0, "
            "8)) from clamp(e0-3, -4, 4)  out: b2 1x8x4x3 /96,12,3,1 axis 1 [b0, e0)\n");
  EXPECT_TRUE(verify_plan(l.graph, l.plan).has_value());
}

// x [1, 16, 16, 4] -> expand: Conv2D 1x1 to 24 channels -> dw:
// DepthwiseConv2D 3x3 pad 1 -> project: Conv2D 1x1 to 4 channels -> y, int8:
// an inverted bottleneck (MobileNetV2), whose expanded tensors are the peak.
ir::Graph make_inverted_bottleneck() {
  testing::TestGraph g;
  g.dtype = ir::DType::kI8;
  const ir::TensorId x = g.input({1, 16, 16, 4});
  const ir::TensorId e = g.node(ir::OpType::kConv2D, {x, g.constant({24, 1, 1, 4})}, make_conv_attrs(1), "expand");
  const ir::TensorId d =
      g.node(ir::OpType::kDepthwiseConv2D, {e, g.constant({1, 3, 3, 24})}, make_conv_attrs(3, 1, 1), "dw");
  g.output(g.node(ir::OpType::kConv2D, {d, g.constant({4, 1, 1, 24})}, make_conv_attrs(1), "project"));
  return std::move(g.graph);
}

TEST(RowLoop, InvertedBottleneckPeaksAtItsInputOutputAndCarriedRows) {
  const Lowered l = lower_all(make_inverted_bottleneck(), 1);
  ASSERT_TRUE(verify_plan(l.graph, l.plan).has_value());
  // Ordinary execution peaks at dw: its input and output, 16 x 16 x 24 bytes
  // each = 2 x 6,144 = 12,288.
  const analysis::BufferGraph& bg = l.bg;
  EXPECT_EQ(analysis::compute_memory_profile(bg, analysis::given_order(bg)).peak_bytes, 12288);
  // One row of the output per iteration. dw reads expand's rows [b - 1, e +
  // 1): expand keeps 3 rows (the last iteration 2) = 3 x 16 x 24 = 1,152
  // bytes, carried; project (1x1) reads dw's rows [b, e), so dw's buffer
  // holds 1 row = 384 bytes, keeps none (no copy) and is partial, live from
  // dw to project. x and y stay whole, live over the loop: 1,024 each. Peak
  // at dw and project: 1,024 + 1,024 + 1,152 + 384 = 3,584.
  const PlanMemory memory = compute_plan_memory(l.plan);
  EXPECT_EQ(memory.peak_bytes, 3584);
  EXPECT_EQ(l.plan.buffers.at(1).role, BufferRole::kPartial) << l.plan.buffers.at(1).name;
  // 16 iterations of 1 copy + 3 calls.
  EXPECT_EQ(l.plan.count_calls(), 64);
  EXPECT_EQ(count_plan_macs(l.graph, l.plan), ir::count_graph_macs(l.graph));
}

// x [1, 13, 6, 3] -> a: Conv2D 3x3 stride 2, dilation 1, pad 1 -> b: MaxPool
// 2x2 stride 1 -> c: Conv2D 3x3 dilation 2 pad 2 -> y; rows 13 -> 7 -> 6 -> 6.
ir::Graph make_strided_dilated_chain() {
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 13, 6, 3});
  const ir::TensorId a = g.node(ir::OpType::kConv2D, {x, g.constant({5, 3, 3, 3})}, make_conv_attrs(3, 2, 1), "a");
  ir::PoolAttrs pool;
  pool.kernel_h = pool.kernel_w = 2;
  const ir::TensorId b = g.node(ir::OpType::kMaxPool, {a}, pool, "b");
  ir::ConvAttrs dilated = make_conv_attrs(3, 1, 2);
  dilated.dilation_h = dilated.dilation_w = 2;
  g.output(g.node(ir::OpType::kConv2D, {b, g.constant({2, 3, 3, 5})}, dilated, "c"));
  return std::move(g.graph);
}

TEST(RowLoop, EveryTileComputesEachRowOnceThroughStridesPoolsAndDilation) {
  for (int64_t tile = 1; tile <= 6; ++tile) {
    const Lowered l = lower_all(make_strided_dilated_chain(), tile);
    Status valid = verify_plan(l.graph, l.plan);
    EXPECT_TRUE(valid) << "tile " << tile << ": " << (valid ? "" : valid.error().message);
    EXPECT_EQ(count_plan_macs(l.graph, l.plan), ir::count_graph_macs(l.graph)) << "tile " << tile;
  }
}

// x [1, 16, 4, 2] -> s: Conv2D 1x1 to 16 channels; deep: four
// DepthwiseConv2D 3x3 pad 1 (a1..a4), then p: Conv2D 1x1 to 2 channels;
// shallow: q: Conv2D 1x1 of s to 2 channels; y = p + q. s has two readers
// at very different depths (NASNet's stem output and its factorized reduce).
ir::Graph make_skewed_diamond() {
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 16, 4, 2});
  const ir::TensorId s = g.node(ir::OpType::kConv2D, {x, g.constant({16, 1, 1, 2})}, make_conv_attrs(1), "s");
  ir::TensorId a = s;
  for (int k = 1; k <= 4; ++k) {
    a = g.node(ir::OpType::kDepthwiseConv2D, {a, g.constant({1, 3, 3, 16})}, make_conv_attrs(3, 1, 1),
               "a" + std::to_string(k));
  }
  const ir::TensorId p = g.node(ir::OpType::kConv2D, {a, g.constant({2, 1, 1, 16})}, make_conv_attrs(1), "p");
  const ir::TensorId q = g.node(ir::OpType::kConv2D, {s, g.constant({2, 1, 1, 16})}, make_conv_attrs(1), "q");
  g.output(g.node(ir::OpType::kAdd, {p, q}, {}, "y"));
  return std::move(g.graph);
}

const PlanBuffer* find_buffer(const Plan& plan, const std::string& name) {
  for (const PlanBuffer& b : plan.buffers) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

TEST(RowLoop, AShallowReaderRunsAheadSoTheSmallerTensorKeepsTheSkew) {
  const Lowered l = lower_all(make_skewed_diamond(), 1);
  ASSERT_TRUE(verify_plan(l.graph, l.plan).has_value());
  EXPECT_EQ(count_plan_macs(l.graph, l.plan), ir::count_graph_macs(l.graph));
  // Output row r needs a4's row r, a3's up to r + 1, ..., a1's up to r + 3
  // and s's up to r + 4, while q needs only s's row r. Were q to compute
  // only what y needs, s would keep rows r .. r + 4 (5 rows of 16 channels x
  // 4 cols x 4 bytes = 1,280) for q. q runs ahead instead, as far as s's rows
  // allow: s keeps only a1's window, rows r + 2 .. r + 4 (3 rows, 768 bytes),
  // and q's output (2 channels: 32 bytes a row) keeps the 5 rows y still
  // needs (160 bytes).
  const ir::TensorId s = l.graph.nodes.at(0).outputs.front();
  const ir::TensorId q = l.graph.nodes.at(6).outputs.front();
  ASSERT_EQ(l.graph.nodes.at(6).name, "q");
  const PlanBuffer* s_rows = find_buffer(l.plan, l.graph.tensor(s).name + ":rows");
  const PlanBuffer* q_rows = find_buffer(l.plan, l.graph.tensor(q).name + ":rows");
  ASSERT_NE(s_rows, nullptr);
  ASSERT_NE(q_rows, nullptr);
  EXPECT_EQ(s_rows->bytes, 768);
  EXPECT_EQ(q_rows->bytes, 160);
  EXPECT_EQ(q_rows->role, BufferRole::kCarried);
}

TEST(RowLoop, RefusesAnOperatorThatReducesItsRows) {
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 4, 4, 2});
  const ir::TensorId a = g.node(ir::OpType::kMaxPool, {x}, ir::PoolAttrs{}, "a");
  g.output(g.node(ir::OpType::kMean, {a}, ir::ReduceAttrs{{1, 2}, true}, "mean"));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const Status status = check_row_loop(g.graph, bg, analysis::given_order(bg), {{0, 1}, 1});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code, ExitCode::kBadCommandLine);
  EXPECT_EQ(status.error().node, "mean");
  EXPECT_NE(status.error().message.find("do not map to rows"), std::string::npos) << status.error().message;
}

TEST(RowLoop, AGlobalPoolEndingTheLoopAccumulatesItsInputsRowsAndFinishesAfterIt) {
  // x (6 x 5 x 4, int8) -> a = conv 3x3 pad 1 -> p = a 6x5 max pool: the
  // loop walks a's 6 rows, two a time; a lives as those two rows (2 x 5 x 4
  // = 40 bytes, partial), the pool folds them into 4 int32 accumulators
  // (16 bytes, live from the loop to the kFinalize call after it), and p's
  // output is written whole by that call only.
  testing::TestGraph g;
  g.dtype = ir::DType::kI8;
  const ir::TensorId x = g.input({1, 6, 5, 4});
  const ir::TensorId a = g.node(ir::OpType::kConv2D, {x, g.constant({4, 3, 3, 4})}, make_conv_attrs(3, 1, 1), "a");
  ir::PoolAttrs global;
  global.kernel_h = 6;
  global.kernel_w = 5;
  const ir::TensorId p = g.node(ir::OpType::kMaxPool, {a}, global, "p");
  g.output(p);
  const Lowered l = lower_all(std::move(g.graph), 2);
  ASSERT_EQ(l.plan.steps.size(), 2u);
  const Loop& loop = l.plan.steps[0].loop();
  EXPECT_EQ(loop.extent, 6);
  ASSERT_EQ(loop.body.size(), 2u);
  EXPECT_EQ(loop.body[1].call().mode, CallMode::kAccumulate);
  EXPECT_EQ(l.plan.steps[1].call().mode, CallMode::kFinalize);
  const PlanBuffer* rows = find_buffer(l.plan, l.graph.tensor(a).name + ":rows");
  const PlanBuffer* acc = find_buffer(l.plan, l.graph.tensor(p).name + ":acc");
  ASSERT_NE(rows, nullptr);
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(rows->role, BufferRole::kPartial);
  EXPECT_EQ(rows->bytes, 40);
  EXPECT_EQ(acc->role, BufferRole::kAccumulator);
  EXPECT_EQ(acc->dtype, ir::DType::kI32);
  EXPECT_EQ(acc->bytes, 16);
  EXPECT_TRUE(verify_plan(l.graph, l.plan).has_value());
  EXPECT_EQ(count_plan_macs(l.graph, l.plan), ir::count_graph_macs(l.graph));
}

TEST(RowLoop, RefusesOperatorsNotConsecutiveInTheOrder) {
  const ir::Graph graph = make_inverted_bottleneck();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const Status status = check_row_loop(graph, bg, analysis::given_order(bg), {{0, 2}, 1});
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("not consecutive"), std::string::npos) << status.error().message;
}

TEST(RowLoop, RefusesAnOperatorNoLaterOneReadsOfOtherRowsThanTheSink) {
  // x -> a (2x2 stride 2: 2 rows), x -> b (4 rows): a feeds nothing in the
  // loop {a, b}, whose sink is b, and has other rows, so no chunk drives it.
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 4, 4, 2});
  ir::PoolAttrs halving;
  halving.kernel_h = halving.kernel_w = halving.stride_h = halving.stride_w = 2;
  g.output(g.node(ir::OpType::kMaxPool, {x}, halving, "a"));
  g.output(g.node(ir::OpType::kMaxPool, {x}, ir::PoolAttrs{}, "b"));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const Status status = check_row_loop(g.graph, bg, analysis::given_order(bg), {{0, 1}, 2});
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().node, "a");
}

TEST(RowLoop, AnotherSinkOfTheSameRowsComputesTheLoopsChunk) {
  // x -> a, x -> b, both 4 rows, both read after the loop {a, b}: a is a
  // second sink; each iteration computes rows [b, e) of both (tile 2: two
  // iterations), written into their whole buffers.
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 4, 4, 2});
  const ir::TensorId a = g.node(ir::OpType::kMaxPool, {x}, ir::PoolAttrs{}, "a");
  const ir::TensorId b = g.node(ir::OpType::kMaxPool, {x}, ir::PoolAttrs{}, "b");
  g.output(a);
  g.output(b);
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  Result<Plan> plan = build_row_loop_plan(g.graph, bg, analysis::given_order(bg), {{{0, 1}, 2}});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->steps.size(), 1u);
  const Loop& loop = std::get<Loop>(plan->steps.front().what);
  EXPECT_EQ(count_iterations(loop), 2);
  ASSERT_EQ(loop.body.size(), 2u);
  for (const Step& step : loop.body) {
    const KernelCall& call = std::get<KernelCall>(step.what);
    const Sweep& rows = call.outputs.front().sweeps.front();
    EXPECT_EQ(rows.first, make_chunk_bound(BoundOf::kChunkBegin, 4));
    EXPECT_EQ(rows.last, make_chunk_bound(BoundOf::kChunkEnd, 4));
  }
  EXPECT_EQ(count_plan_macs(g.graph, *plan), ir::count_graph_macs(g.graph));
}

// --- verify_plan on broken row loops (the chain of the dump above) ------------

class VerifyRowLoopRejects : public ::testing::Test {
 protected:
  VerifyRowLoopRejects() : lowered_(lower_all(make_conv_depthwise_chain(), 2)) {}

  Loop& loop() { return std::get<Loop>(lowered_.plan.steps.at(0).what); }
  // Body steps: 0 the copy (BlockConcat) of c's rows, 1 c, 2 d.
  KernelCall& body_call(size_t index) { return std::get<KernelCall>(loop().body.at(index).what); }

  void expect_rejected(const std::string& what, const std::string& message) {
    const Status status = verify_plan(lowered_.graph, lowered_.plan);
    ASSERT_FALSE(status) << what;
    EXPECT_EQ(status.error().code, ExitCode::kInternal) << what;
    EXPECT_NE(status.error().message.find(message), std::string::npos) << what << ": " << status.error().message;
  }

  Lowered lowered_;
};

TEST_F(VerifyRowLoopRejects, ACarriedBufferWithoutItsBlockConcat) {
  loop().body.erase(loop().body.begin());
  // In iteration 1 d's window starts at c's row 1, which iteration 0 left at
  // position 1 and nothing moved to position 0.
  expect_rejected("the kept rows stay where the last iteration left them", "d' (whole) reads element");
}

TEST_F(VerifyRowLoopRejects, ACarriedBufferARowTooShort) {
  lowered_.plan.buffers[0].bytes -= 4 * 3 * 4;  // one row of 4 x 3 floats
  expect_rejected("4 rows held in a buffer of 3", "reaches element");
}

TEST_F(VerifyRowLoopRejects, AWindowThatMissesItsFirstRow) {
  Sweep& rows = body_call(2).inputs[0].sweeps[0];
  rows.first = compose_bound(rows.first, 1, 1, rows.first.low + 1, rows.first.high + 1);
  expect_rejected("d's window starts a row late", "read indices [0, 3) of input 0, but its view shows [1, 3)");
}

TEST_F(VerifyRowLoopRejects, ASweepByALoopThatDoesNotEncloseTheCall) {
  body_call(2).outputs[0].sweeps[0].loop = 1;
  expect_rejected("loop 1 in a nest of one loop", "but the call is inside 1 loops");
}

TEST_F(VerifyRowLoopRejects, ASweepOnAnAxisItsLoopDoesNotWalk) {
  body_call(2).outputs[0].sweeps[0].axis = 2;
  expect_rejected("a row loop sweeping cols", "which walks rows");
}

TEST_F(VerifyRowLoopRejects, ADecreasingBound) {
  body_call(2).outputs[0].sweeps[0].last.scale = -1;
  expect_rejected("a bound that falls as the loop advances", "decreasing bound");
}

TEST_F(VerifyRowLoopRejects, ABoundWithoutAPositiveDivisor) {
  body_call(2).outputs[0].sweeps[0].last.divisor = 0;
  expect_rejected("floor(x / 0)", "decreasing bound");
}

TEST_F(VerifyRowLoopRejects, AnInnerLoopWithATileAboveItsExtent) {
  Loop channels{"channels", LoopAxis::kChannels, 3, 4, {loop().body.back()}};
  loop().body.back() = Step{std::move(channels)};
  expect_rejected("tile 4 over 3 channels, nested", "loop 'channels' has tile 4, extent 3");
}

TEST_F(VerifyRowLoopRejects, ARowTheLoopNeverWrites) {
  // d's rows end one short of the chunk, the last iteration included.
  Sweep& rows = body_call(2).outputs[0].sweeps[0];
  rows.last = compose_bound(rows.last, 1, -1, 0, 7);
  expect_rejected("y's row 7 is never written", "is not written whole");
}

// x [1, 32, 4, 2] f32 -> s: Conv2D 3x3 stride 2 pad 1 (4 channels, 16 rows)
// -> d1: DepthwiseConv2D 3x3 pad 1 -> e: Conv2D 1x1 (6 channels) -> d2:
// DepthwiseConv2D 3x3 stride 2 pad 1 (8 rows) -> p: Conv2D 1x1 (3 channels):
// MobileNetV2's first blocks in small, the sink at half the rows of its
// producers.
ir::Graph make_half_rate_chain() {
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 32, 4, 2});
  ir::TensorId t = g.node(ir::OpType::kConv2D, {x, g.constant({4, 3, 3, 2})}, make_conv_attrs(3, 2, 1), "s");
  t = g.node(ir::OpType::kDepthwiseConv2D, {t, g.constant({1, 3, 3, 4})}, make_conv_attrs(3, 1, 1), "d1");
  t = g.node(ir::OpType::kConv2D, {t, g.constant({6, 1, 1, 4})}, make_conv_attrs(1), "e");
  t = g.node(ir::OpType::kDepthwiseConv2D, {t, g.constant({1, 3, 3, 6})}, make_conv_attrs(3, 2, 1), "d2");
  g.output(g.node(ir::OpType::kConv2D, {t, g.constant({3, 1, 1, 6})}, make_conv_attrs(1), "p"));
  return std::move(g.graph);
}

Lowered lower_at_rate(int64_t most_rate) {
  Lowered l{make_half_rate_chain(), {}, {}};
  l.bg = analysis::build_buffer_graph(l.graph);
  RowLoopSpec spec;
  for (size_t op = 0; op < l.bg.operators.size(); ++op) spec.ops.push_back(static_cast<int>(op));
  spec.most_rate = most_rate;
  Result<Plan> plan = build_row_loop_plan(l.graph, l.bg, analysis::given_order(l.bg), {spec});
  EXPECT_TRUE(plan) << (plan ? "" : plan.error().format());
  if (plan) l.plan = std::move(*plan);
  return l;
}

// Bytes of the loop buffer holding rows of the tensor `name`.
int64_t rows_buffer_bytes(const Plan& plan, const std::string& name) {
  for (const PlanBuffer& b : plan.buffers) {
    if (b.name == name + ":rows") return b.bytes;
  }
  return -1;
}

TEST(RowLoop, ProducersBeforeAStrideTwoWindowAdvanceOneRowAStepAtRateTwo) {
  const Lowered once = lower_at_rate(1), twice = lower_at_rate(2);
  ASSERT_EQ(once.plan.steps.size(), 1u);
  ASSERT_EQ(twice.plan.steps.size(), 1u);
  // One step per row of p's 8 rows, or two.
  EXPECT_EQ(once.plan.steps[0].loop().extent, 8);
  EXPECT_EQ(twice.plan.steps[0].loop().extent, 16);
  // s's rows: d1 reads 2 new rows a step plus its window's 2 more at rate 1
  // (4 rows of 2 x 4 floats), one new row at rate 2 (3 rows); d1 and e one
  // row instead of two; e keeps the 3 rows d2's stride-2 window reads.
  const int64_t row_of_s = 2 * 4 * 4, row_of_e = 2 * 6 * 4;  // 2 columns after the stride-2 s
  EXPECT_EQ(rows_buffer_bytes(once.plan, once.graph.tensor(once.graph.nodes[0].outputs[0]).name), 4 * row_of_s);
  EXPECT_EQ(rows_buffer_bytes(twice.plan, twice.graph.tensor(twice.graph.nodes[0].outputs[0]).name), 3 * row_of_s);
  EXPECT_EQ(rows_buffer_bytes(twice.plan, twice.graph.tensor(twice.graph.nodes[1].outputs[0]).name), row_of_s);
  EXPECT_EQ(rows_buffer_bytes(twice.plan, twice.graph.tensor(twice.graph.nodes[2].outputs[0]).name), 3 * row_of_e);
  EXPECT_LT(compute_plan_memory(twice.plan).peak_bytes, compute_plan_memory(once.plan).peak_bytes);
  // e's rows are laid out from the first row d2 keeps, 2 floor(b0/2) - 1,
  // so they move once every two steps, by a copy after the iteration's reads.
  const std::vector<Step>& body = twice.plan.steps[0].loop().body;
  ASSERT_GE(body.size(), 2u);
  EXPECT_EQ(body.back().call().mode, CallMode::kCopy);
  EXPECT_EQ(body.back().call().outputs[0].sweeps[0].base.divisor, 2);
  // p computes one row every two steps: its bound of the chunk's end has the divisor.
  const View& sink_out = body[body.size() - 2].call().outputs[0];
  ASSERT_EQ(sink_out.sweeps.size(), 1u);
  EXPECT_EQ(sink_out.sweeps[0].last.divisor, 2);
  std::ostringstream dump;
  print_plan(dump, twice.graph, twice.plan);
  EXPECT_NE(dump.str().find("floor(e0/2)"), std::string::npos) << dump.str();
  for (const Lowered* l : {&once, &twice}) {
    EXPECT_TRUE(verify_plan(l->graph, l->plan));
    EXPECT_EQ(count_plan_macs(l->graph, l->plan), ir::count_graph_macs(l->graph));
  }
}

}  // namespace
}  // namespace tinyfit::plan
