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

TEST(RowGeometry, EveryTensorButTheSinkIsReadInTheLoop) {
  // Two convolutions of x side by side: the first one's output is read by
  // no operator of the loop and is not its last, so no chunk of the loop
  // drives it (plan/lower_row_loop.h's rule).
  TestGraph g;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  g.output(add_conv(g, x, 3, 1, 1));
  g.output(add_conv(g, x, 3, 2, 1));
  Result<RowGeometry> geometry = compute(g, {0, 1}, 1);
  ASSERT_FALSE(geometry);
  EXPECT_NE(geometry.error().message.find("not its last output"), std::string::npos) << geometry.error().message;
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
  EXPECT_NE(geometry.error().message.find("does not map its rows"), std::string::npos) << geometry.error().message;
}

}  // namespace
}  // namespace tinyfit::partition
