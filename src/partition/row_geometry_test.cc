// Row geometry of row loops on hand-built graphs, worked out by hand from
// MemoriaNova eq. 1 (input rows [b*S - P, (e-1)*S + K - P) for output rows
// [b, e)); every expected number comes with its arithmetic.
#include "partition/row_geometry.h"

#include <gtest/gtest.h>

#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

ir::TensorId add_conv(TestGraph& g, ir::TensorId x, int64_t kernel, int64_t stride, int64_t pad, int64_t channels = 4) {
  const int64_t in_channels = g.graph.tensor(x).shape[3];
  return g.node(OpType::kConv2D, {x, g.constant({channels, kernel, kernel, in_channels})},
                make_conv_attrs(kernel, stride, pad));
}

Result<RowGeometry> compute(const TestGraph& g, std::vector<int> operators, int64_t tile) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  TINYFIT_ASSIGN_OR_RETURN(const PartitionScheme scheme,
                           make_partition_scheme(g.graph, bg, build_acg(g.graph), std::move(operators),
                                                 PartitionAxis::kRows, tile));
  return compute_row_geometry(g.graph, bg, scheme);
}

TEST(RowGeometry, TwoConvolutionsKeepTheHaloRowsOfTheFirst) {
  // x (8 rows) -> a = conv3x3 pad 1 -> b = conv3x3 pad 1, two rows of b per
  // iteration: end_b = 2, 4, 6, 8; b's rows [0, e) read a's rows [0, e + 1):
  // end_a = 3, 5, 7, 8. b's next rows [e, 8) start reading a at e - 1:
  // base_a = 0, 1, 3, 5; held = 3, 4, 4, 3 rows; kept rows 2 in each of
  // iterations 1..3, each after the base moved: 3 copies of 2 rows.
  TestGraph g;  // float32, 4 channels: a row is 8 x 4 x 4 = 128 bytes
  const ir::TensorId x = g.input({1, 8, 8, 4});
  const ir::TensorId a = add_conv(g, x, 3, 1, 1);
  const ir::TensorId b = add_conv(g, a, 3, 1, 1);
  g.output(b);
  Result<RowGeometry> geometry = compute(g, {0, 1}, 2);
  ASSERT_TRUE(geometry) << geometry.error().message;
  EXPECT_EQ(geometry->iterations, 4);
  const TensorRows* rows_a = geometry->find(a);
  ASSERT_NE(rows_a, nullptr);
  EXPECT_EQ(rows_a->holding, RowHolding::kCarried);
  EXPECT_EQ(rows_a->end, (std::vector<int64_t>{3, 5, 7, 8}));
  EXPECT_EQ(rows_a->base, (std::vector<int64_t>{0, 1, 3, 5}));
  EXPECT_EQ(rows_a->rows_held, 4);
  EXPECT_EQ(geometry->find(b)->holding, RowHolding::kWhole);
  EXPECT_EQ(geometry->find(x)->holding, RowHolding::kWhole);
  EXPECT_EQ(geometry->carried_bytes, 4 * 128);
  EXPECT_EQ(geometry->copy_calls, 3);
  EXPECT_EQ(geometry->copied_bytes, 3 * 2 * 128);
}

TEST(RowGeometry, AGlobalPoolAtTheEndAccumulatesEachIterationsRows) {
  // x (8 rows) -> a = conv3x3 pad 1 -> p = an 8x8 average pool (global),
  // two rows of a per iteration: 4 iterations over a's rows (the pool's
  // input, not its one output row). The pool folds each iteration's two rows
  // into 4 int32 accumulators, so a lives as those rows only (partial: 2
  // rows of 8 x 4 int8 = 64 bytes) and the accumulators are carried (4 x 4
  // bytes); x is whole.
  TestGraph g;
  g.dtype = ir::DType::kI8;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  const ir::TensorId a = add_conv(g, x, 3, 1, 1);
  ir::PoolAttrs global;
  global.kernel_h = global.kernel_w = 8;
  const ir::TensorId p = g.node(OpType::kAveragePool, {a}, global);
  g.output(p);
  Result<RowGeometry> geometry = compute(g, {0, 1}, 2);
  ASSERT_TRUE(geometry) << geometry.error().message;
  EXPECT_EQ(geometry->extent, 8);
  EXPECT_EQ(geometry->iterations, 4);
  EXPECT_EQ(geometry->find(a)->holding, RowHolding::kPartial);
  EXPECT_EQ(geometry->find(a)->rows_held, 2);
  EXPECT_EQ(geometry->find(a)->end, (std::vector<int64_t>{2, 4, 6, 8}));
  EXPECT_EQ(geometry->find(p)->holding, RowHolding::kAccumulated);
  EXPECT_EQ(geometry->carried_bytes, 4 * 4);
  EXPECT_EQ(geometry->peak_partial_bytes, 64);
}

TEST(RowGeometry, ALagSpreadsTheProducersLeadOverTheStepsBeforeTheSinksFirstRow) {
  // x (8 rows) -> a -> b -> c -> d, each conv3x3 pad 1, one row of d per
  // iteration. Without a lag, d's first row needs c's rows [0, 2), b's [0,
  // 3) and a's [0, 4) at once: a holds 4 rows in the first iteration (3
  // later), b and c 3 each: 10 rows. With the loop starting 3 steps early
  // (a leads d by 3 rows), a computes one row per step from the start (end
  // 1, 2, 3, 4, ...), and holds 3 rows at most: 9 rows, so the lag is kept;
  // 8 + 3 steps.
  TestGraph g;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  const ir::TensorId a = add_conv(g, x, 3, 1, 1);
  const ir::TensorId b = add_conv(g, a, 3, 1, 1);
  const ir::TensorId c = add_conv(g, b, 3, 1, 1);
  g.output(add_conv(g, c, 3, 1, 1));
  Result<RowGeometry> geometry = compute(g, {0, 1, 2, 3}, 1);
  ASSERT_TRUE(geometry) << geometry.error().message;
  EXPECT_EQ(geometry->lag, 3);
  EXPECT_EQ(geometry->iterations, 11);
  const TensorRows* rows_a = geometry->find(a);
  ASSERT_NE(rows_a, nullptr);
  EXPECT_EQ(rows_a->end, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 8, 8, 8}));
  EXPECT_EQ(rows_a->rows_held, 3);
  EXPECT_EQ(geometry->find(b)->rows_held, 3);
  EXPECT_EQ(geometry->find(c)->rows_held, 3);
  EXPECT_EQ(geometry->carried_bytes, 9 * 128);
}

TEST(RowGeometry, AShallowReaderRunsAheadSoItsSmallerOutputKeepsTheSkew) {
  // x (16 rows) -> s = conv1x1 (16 channels); deep: four depthwise 3x3 pad 1
  // then p = conv1x1 (2 channels); shallow: q = conv1x1 of s (2 channels);
  // y = p + q. y's row r needs s's rows up to r + 4 through the deep branch
  // and only row r through q. Were q to compute only what y needs, s would
  // keep 5 rows for it (16 x 4 x 4 = 256 bytes a row). q runs ahead as far
  // as s's rows allow instead: s keeps a1's window, 3 rows, and q (32 bytes
  // a row) the 5 rows y still needs.
  TestGraph g;
  const ir::TensorId x = g.input({1, 16, 4, 2});
  const ir::TensorId s = add_conv(g, x, 1, 1, 0, 16);
  ir::TensorId a = s;
  for (int k = 0; k < 4; ++k) {
    a = g.node(OpType::kDepthwiseConv2D, {a, g.constant({1, 3, 3, 16})}, make_conv_attrs(3, 1, 1));
  }
  const ir::TensorId p = add_conv(g, a, 1, 1, 0, 2);
  const ir::TensorId q = add_conv(g, s, 1, 1, 0, 2);
  g.output(g.node(OpType::kAdd, {p, q}));
  Result<RowGeometry> geometry = compute(g, {0, 1, 2, 3, 4, 5, 6, 7}, 1);
  ASSERT_TRUE(geometry) << geometry.error().message;
  ASSERT_NE(geometry->find(s), nullptr);
  ASSERT_NE(geometry->find(q), nullptr);
  EXPECT_EQ(geometry->find(s)->rows_held, 3);
  EXPECT_EQ(geometry->find(q)->rows_held, 5);
  EXPECT_EQ(geometry->find(q)->holding, RowHolding::kCarried);
}

TEST(RowGeometry, PointwiseChainsHoldOnlyTheIterationsRows) {
  // 1x1 convolutions read exactly the rows they write: a and b are partial,
  // 3 rows each (tile 3), both live while b runs: 2 x 3 x 128 bytes.
  TestGraph g;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  const ir::TensorId a = add_conv(g, x, 1, 1, 0);
  const ir::TensorId b = add_conv(g, a, 1, 1, 0);
  g.output(add_conv(g, b, 1, 1, 0));
  Result<RowGeometry> geometry = compute(g, {0, 1, 2}, 3);
  ASSERT_TRUE(geometry) << geometry.error().message;
  EXPECT_EQ(geometry->iterations, 3);  // ceil(8 / 3)
  EXPECT_EQ(geometry->find(a)->holding, RowHolding::kPartial);
  EXPECT_EQ(geometry->find(b)->holding, RowHolding::kPartial);
  EXPECT_EQ(geometry->find(a)->end, (std::vector<int64_t>{3, 6, 8}));
  EXPECT_EQ(geometry->carried_bytes, 0);
  EXPECT_EQ(geometry->peak_partial_bytes, 2 * 3 * 128);
  EXPECT_EQ(geometry->copy_calls, 0);
}

TEST(RowGeometry, AStridedConvolutionReadsTwiceTheRowsPlusItsWindow) {
  // x (8 rows) -> a = conv3x3 pad 1 (8 rows) -> b = conv3x3 stride 2 pad 1
  // (4 rows), one row of b per iteration: b's rows [0, e) read a's rows
  // [0, 2e): end_a = 2, 4, 6, 8; b's row e starts at 2e - 1: base_a = 0, 1,
  // 3, 5; held 2, 3, 3, 3.
  TestGraph g;
  const ir::TensorId a = add_conv(g, g.input({1, 8, 8, 4}), 3, 1, 1);
  const ir::TensorId b = add_conv(g, a, 3, 2, 1);
  g.output(b);
  Result<RowGeometry> geometry = compute(g, {0, 1}, 1);
  ASSERT_TRUE(geometry) << geometry.error().message;
  EXPECT_EQ(geometry->extent, 4);  // the sink's rows
  EXPECT_EQ(geometry->find(a)->end, (std::vector<int64_t>{2, 4, 6, 8}));
  EXPECT_EQ(geometry->find(a)->base, (std::vector<int64_t>{0, 1, 3, 5}));
  EXPECT_EQ(geometry->find(a)->rows_held, 3);
}

TEST(RowGeometry, AResidualSkipIsKeptUntilTheAddReadsIt) {
  // t = conv1x1(x); u = conv3x3 pad 1 (t); y = t + u, two rows per
  // iteration: end_y = end_u = 2, 4, 6, 8; t must reach u's window: end_t =
  // 3, 5, 7, 8; the Add still needs row e of t, u's window row e - 1:
  // base_t = 0, 1, 3, 5, held 4 rows, as in the two-convolution case.
  TestGraph g;
  const ir::TensorId t = add_conv(g, g.input({1, 8, 8, 4}), 1, 1, 0);
  const ir::TensorId u = add_conv(g, t, 3, 1, 1);
  g.output(g.node(OpType::kAdd, {t, u}));
  Result<RowGeometry> geometry = compute(g, {0, 1, 2}, 2);
  ASSERT_TRUE(geometry) << geometry.error().message;
  EXPECT_EQ(geometry->find(t)->holding, RowHolding::kCarried);
  EXPECT_EQ(geometry->find(t)->base, (std::vector<int64_t>{0, 1, 3, 5}));
  EXPECT_EQ(geometry->find(t)->rows_held, 4);
  EXPECT_EQ(geometry->find(u)->holding, RowHolding::kPartial);
}

TEST(RowGeometry, AnotherSinkOfTheSameRowsFollowsTheLoopsChunk) {
  // Two convolutions of x side by side, both 3x3 pad 1 stride 1 (8 rows):
  // the first one's output, read by no operator of the loop, is another
  // sink: both compute the loop's chunk, end = 2, 4, 6, 8 at tile 2, and are
  // handed on whole; x is read whole.
  TestGraph g;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  const ir::TensorId a = add_conv(g, x, 3, 1, 1);
  const ir::TensorId b = add_conv(g, x, 3, 1, 1);
  g.output(a);
  g.output(b);
  Result<RowGeometry> geometry = compute(g, {0, 1}, 2);
  ASSERT_TRUE(geometry) << geometry.error().message;
  for (const ir::TensorId sink : {a, b}) {
    EXPECT_EQ(geometry->find(sink)->holding, RowHolding::kWhole);
    EXPECT_EQ(geometry->find(sink)->end, (std::vector<int64_t>{2, 4, 6, 8}));
  }
  EXPECT_EQ(geometry->carried_bytes, 0);
}

TEST(RowGeometry, EveryTensorButTheSinksIsReadInTheLoop) {
  // Two convolutions of x side by side, the second of stride 2: the first
  // one's output (8 rows) is read by no operator of the loop and has other
  // rows than its sink (4), so no chunk of the loop drives it
  // (plan/lower_row_loop.h's rule).
  TestGraph g;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  g.output(add_conv(g, x, 3, 1, 1));
  g.output(add_conv(g, x, 3, 2, 1));
  Result<RowGeometry> geometry = compute(g, {0, 1}, 1);
  ASSERT_FALSE(geometry);
  EXPECT_NE(geometry.error().message.find("no later operator of the loop reads its output"), std::string::npos)
      << geometry.error().message;
}

TEST(RowGeometry, AReductionOverRowsIsAValidSchemeButNotARowLoop) {
  // The mean's reduce axis joins a's rows (MOTES: an output may be reduced
  // along A, conditions 1 and 2 hold), but a row loop that accumulates a
  // reduction over its rows is not built: the geometry refuses it.
  TestGraph g;
  const ir::TensorId a = add_conv(g, g.input({1, 8, 8, 4}), 3, 1, 1);
  ir::ReduceAttrs mean;
  mean.axes = {1, 2};
  mean.keep_dims = true;
  g.output(g.node(OpType::kMean, {a}, mean));
  Result<RowGeometry> geometry = compute(g, {0, 1}, 2);
  ASSERT_FALSE(geometry);
  EXPECT_NE(geometry.error().message.find("rows do not map to rows of input"), std::string::npos)
      << geometry.error().message;
}

// --- Token loops: attention by query tokens -----------------------------------

// x [T=8, D=4] -> q, k, v = FullyConnected(x); heads split by Reshape to
// [8, 2, 2] + Transpose (q, v to [2, 8, 2]; k to [2, 2, 8]); s = q x k
// ([2, 8, 8]); p = Softmax(s, axis 2); c = p x v ([2, 8, 2]); Transpose to
// [8, 2, 2], Reshape to [8, 4], output projection o (FullyConnected).
// Operators in order: 0 q, 1 k, 2 v, 3 q heads, 4 k heads, 5 v heads, 6 s,
// 7 p, 8 c, 9 c tokens, 10 o.
struct Attention {
  TestGraph g;
  ir::TensorId x, q, k, kh, s, p, c, ct, merged, o;
};

Attention make_attention() {
  Attention a;
  TestGraph& g = a.g;
  a.x = g.input({8, 4});
  auto dense = [&](ir::TensorId x) { return g.node(OpType::kFullyConnected, {x, g.constant({4, 4})}); };
  a.q = dense(a.x);
  a.k = dense(a.x);
  const ir::TensorId v = dense(a.x);
  const ir::TensorId qh = g.node(OpType::kTranspose, {g.reshape(a.q, {8, 2, 2})}, ir::TransposeAttrs{{1, 0, 2}});
  a.kh = g.node(OpType::kTranspose, {g.reshape(a.k, {8, 2, 2})}, ir::TransposeAttrs{{1, 2, 0}});
  const ir::TensorId vh = g.node(OpType::kTranspose, {g.reshape(v, {8, 2, 2})}, ir::TransposeAttrs{{1, 0, 2}});
  a.s = g.node(OpType::kMatMul, {qh, a.kh}, ir::MatMulAttrs{});
  a.p = g.node(OpType::kSoftmax, {a.s}, ir::SoftmaxAttrs{2, 1.0f});
  a.c = g.node(OpType::kMatMul, {a.p, vh}, ir::MatMulAttrs{});
  a.ct = g.node(OpType::kTranspose, {a.c}, ir::TransposeAttrs{{1, 0, 2}});
  a.merged = g.reshape(a.ct, {8, 4});
  a.o = dense(a.merged);
  g.output(a.o);
  return a;
}

TEST(LoopAxes, AQueryTokenLoopRunsOnlyWhatTheSinksTokensNeedByTokens) {
  // From the sink (o, axis 0) back: o reads c tokens' axis 0 through the
  // Reshape; c tokens reads c's axis 1; c reads p's axis 1 (its M rows)
  // and v heads whole (P x V sums over the keys); p reads s's axis 1 (not
  // the Softmax's reduced axis 2); s reads q heads' axis 1 and k heads
  // whole; q heads reads q's axis 0 through the Reshape. k, v and their
  // heads stay outside.
  const Attention a = make_attention();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(a.g.graph);
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const std::vector<int> chosen = select_loop_operators(a.g.graph, bg, all, 0);
  EXPECT_EQ(chosen, (std::vector<int>{0, 3, 6, 7, 8, 9, 10}));
  Result<std::vector<LoopOperatorAxes>> axes = find_loop_axes(a.g.graph, bg, chosen, 0, true);
  ASSERT_TRUE(axes) << axes.error().message;
  std::vector<int> output_axes;
  for (const LoopOperatorAxes& o : *axes) output_axes.push_back(o.output_axis);
  EXPECT_EQ(output_axes, (std::vector<int>{0, 1, 1, 1, 1, 0, 0}));
  const LoopOperatorAxes& scores = (*axes)[2];
  ASSERT_EQ(scores.reads.size(), 2u);
  EXPECT_EQ(scores.reads[1].tensor, a.kh);
  EXPECT_EQ(scores.reads[1].axis, -1);  // the keys, whole
  EXPECT_EQ(scores.reads[1].source, ir::kNoTensor);
  const LoopOperatorAxes& query_heads = (*axes)[1];
  ASSERT_EQ(query_heads.reads.size(), 1u);
  EXPECT_EQ(query_heads.reads[0].source, a.q);  // through the Reshape
  EXPECT_EQ(query_heads.reads[0].source_axis, 0);
  // A row loop reads nothing whole.
  EXPECT_FALSE(find_loop_axes(a.g.graph, bg, chosen, 0, false));
}

TEST(LoopAxes, TheKeysCannotRunByQueryTokens) {
  // With k in the loop, the scores' keys axis would have to follow the query
  // tokens: s reads k heads whole, which the loop makes.
  const Attention a = make_attention();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(a.g.graph);
  Result<std::vector<LoopOperatorAxes>> axes = find_loop_axes(a.g.graph, bg, {0, 1, 3, 4, 6, 7, 8, 9, 10}, 0, true);
  ASSERT_FALSE(axes);
  EXPECT_NE(axes.error().message.find("whole"), std::string::npos) << axes.error().message;
}

TEST(LoopAxes, TokenSchemeGeometryHoldsTheScoresOfOneTileOfQueries) {
  // Tile 2 of 8 tokens: 4 iterations; the scores and probabilities live as
  // 2 query rows of both heads (2 x 2 x 8 floats = 128 bytes each), nothing
  // carried (no window), q held 2 rows (2 x 4 floats); c tokens too, read by
  // o through the Reshape; only o is whole.
  const Attention a = make_attention();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(a.g.graph);
  Result<PartitionScheme> scheme =
      make_partition_scheme(a.g.graph, bg, build_acg(a.g.graph), {0, 3, 6, 7, 8, 9, 10}, PartitionAxis::kTokens, 2);
  ASSERT_TRUE(scheme) << scheme.error().message;
  EXPECT_EQ(scheme->extent, 8);
  EXPECT_EQ(scheme->outputs, (std::vector<ir::TensorId>{a.o}));
  Result<RowGeometry> geometry = compute_row_geometry(a.g.graph, bg, *scheme);
  ASSERT_TRUE(geometry) << geometry.error().message;
  EXPECT_EQ(geometry->iterations, 4);
  EXPECT_EQ(geometry->carried_bytes, 0);
  EXPECT_EQ(geometry->copy_calls, 0);
  const TensorRows* scores = geometry->find(a.s);
  ASSERT_NE(scores, nullptr);
  EXPECT_EQ(scores->holding, RowHolding::kPartial);
  EXPECT_EQ(scores->rows_held, 2);
  EXPECT_EQ(scores->rows_held * scores->row_bytes, 128);
  EXPECT_EQ(geometry->find(a.q)->rows_held * geometry->find(a.q)->row_bytes, 2 * 4 * 4);
  EXPECT_EQ(geometry->find(a.ct)->holding, RowHolding::kPartial);
  EXPECT_EQ(geometry->find(a.o)->holding, RowHolding::kWhole);
}

}  // namespace
}  // namespace tinyfit::partition
