// Partition schemes and their conditions (MOTES §4.3) on hand-built graphs;
// each case says which condition holds or fails and why.
#include "partition/partition_scheme.h"

#include <gtest/gtest.h>

#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

// MOTES Figure 5(a): expand 1x1 -> depthwise 3x3 -> project 1x1, then a
// clamp after project. Operators 0..3 in that order.
struct InvertedBottleneck {
  TestGraph g;
  ir::TensorId x, e, d, p, r;

  InvertedBottleneck() {
    x = g.input({1, 8, 8, 4});
    e = g.node(OpType::kConv2D, {x, g.constant({16, 1, 1, 4})}, make_conv_attrs(1), "expand");
    d = g.node(OpType::kDepthwiseConv2D, {e, g.constant({1, 3, 3, 16})}, make_conv_attrs(3, 1, 1), "dw");
    p = g.node(OpType::kConv2D, {d, g.constant({4, 1, 1, 16})}, make_conv_attrs(1), "project");
    r = g.node(OpType::kClip, {p}, ir::ClipAttrs{0.0f, 6.0f}, "relu");
    g.output(r);
  }
  Result<PartitionScheme> make(std::vector<int> operators, PartitionAxis axis, int64_t tile) const {
    const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
    return make_partition_scheme(g.graph, bg, build_acg(g.graph), std::move(operators), axis, tile);
  }
};

TEST(PartitionScheme, ChannelsOfTheExpandedTensorEndInProjectsReduceAxis) {
  // Figure 5(c): A = {e@channel, d@channel, project@reduce}; project's output
  // is V_O and reduced (condition 1), nothing else is reduced (condition 2).
  InvertedBottleneck ib;
  Result<PartitionScheme> scheme = ib.make({0, 1, 2}, PartitionAxis::kChannels, 4);
  ASSERT_TRUE(scheme) << scheme.error().message;
  EXPECT_EQ(scheme->acg_vertices.size(), 3u);
  EXPECT_TRUE(scheme->split_inputs.empty());  // x's channels feed expand's reduce axis, not A
  EXPECT_EQ(scheme->outputs, (std::vector<ir::TensorId>{ib.p}));
  EXPECT_EQ(scheme->extent, 16);
  EXPECT_EQ(scheme->count_parts(), 4);
}

TEST(PartitionScheme, APartialSumMayNotFeedAnotherOperatorOfTheScheme) {
  // Condition (2): with the clamp inside, project's output is no longer an
  // output of S but project is still cut along its reduce axis.
  InvertedBottleneck ib;
  Result<PartitionScheme> scheme = ib.make({0, 1, 2, 3}, PartitionAxis::kChannels, 4);
  ASSERT_FALSE(scheme);
  EXPECT_NE(scheme.error().message.find("partial sum"), std::string::npos) << scheme.error().message;
}

TEST(PartitionScheme, AnOperatorOffTheAxisWouldBeRecomputed) {
  // Two convolutions of one input generate unrelated output channels: cut
  // along the first one's, the second (read by a clamp inside the scheme)
  // would run whole in every part.
  TestGraph g;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  g.output(g.node(OpType::kConv2D, {x, g.constant({8, 1, 1, 4})}, make_conv_attrs(1), "a"));
  const ir::TensorId b = g.node(OpType::kConv2D, {x, g.constant({4, 1, 1, 4})}, make_conv_attrs(1), "b");
  g.output(g.node(OpType::kClip, {b}, ir::ClipAttrs{0.0f, 6.0f}, "c"));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const AxisConnectingGraph acg = build_acg(g.graph);
  Result<PartitionScheme> channels = make_partition_scheme(g.graph, bg, acg, {0, 1, 2}, PartitionAxis::kChannels, 2);
  ASSERT_FALSE(channels);
  EXPECT_NE(channels.error().message.find("'b' is not on the scheme's axis"), std::string::npos)
      << channels.error().message;
  // Along rows all three follow x's rows: valid.
  EXPECT_TRUE(make_partition_scheme(g.graph, bg, acg, {0, 1, 2}, PartitionAxis::kRows, 2));
}

TEST(PartitionScheme, RowsRunThroughEveryOperatorAndSplitTheInput) {
  // Figure 5(d) along rows: x is split (V_I), the clamp's output is V_O, and
  // the extent is the last operator's output rows.
  InvertedBottleneck ib;
  Result<PartitionScheme> scheme = ib.make({0, 1, 2, 3}, PartitionAxis::kRows, 3);
  ASSERT_TRUE(scheme) << scheme.error().message;
  EXPECT_EQ(scheme->split_inputs, (std::vector<ir::TensorId>{ib.x}));
  EXPECT_EQ(scheme->outputs, (std::vector<ir::TensorId>{ib.r}));
  EXPECT_EQ(scheme->extent, 8);
  EXPECT_EQ(scheme->count_parts(), 3);  // ceil(8 / 3): the last part is 2 rows
}

TEST(PartitionScheme, ATensorReadAfterTheSchemeIsAnOutput) {
  // Cutting expand and dw only: d is read by project outside, so d is V_O.
  InvertedBottleneck ib;
  Result<PartitionScheme> scheme = ib.make({0, 1}, PartitionAxis::kRows, 2);
  ASSERT_TRUE(scheme) << scheme.error().message;
  EXPECT_EQ(scheme->outputs, (std::vector<ir::TensorId>{ib.d}));
}

// x (6 x 5 rows and cols) -> a = conv 3x3 pad 1 -> a pool of `window`.
struct ConvThenPool {
  TestGraph g;
  ir::TensorId x, a, p;
  ConvThenPool(ir::DType dtype, OpType pool, int64_t window_h, int64_t window_w) {
    g.dtype = dtype;
    x = g.input({1, 6, 5, 4});
    a = g.node(OpType::kConv2D, {x, g.constant({4, 3, 3, 4})}, make_conv_attrs(3, 1, 1));
    ir::PoolAttrs attrs;
    attrs.kernel_h = window_h;
    attrs.kernel_w = window_w;
    p = g.node(pool, {a}, attrs);
    g.output(p);
  }
  const ir::Node& pool() const { return g.graph.nodes.back(); }
};

TEST(PartitionScheme, AGlobalIntegerPoolAccumulatesTheRowsOfItsInput) {
  for (const auto& [dtype, op] : {std::pair{ir::DType::kI8, OpType::kAveragePool}, {ir::DType::kI8, OpType::kMaxPool},
                                  {ir::DType::kU8, OpType::kAveragePool}}) {
    const ConvThenPool net(dtype, op, 6, 5);
    EXPECT_TRUE(accumulates_rows(net.g.graph, net.pool())) << ir::op_type_name(op);
  }
  // Not over every row or col, or float (the runtime's accumulators are int32).
  const ConvThenPool rows_short(ir::DType::kI8, OpType::kAveragePool, 5, 5);
  const ConvThenPool cols_short(ir::DType::kI8, OpType::kAveragePool, 6, 4);
  const ConvThenPool floats(ir::DType::kF32, OpType::kAveragePool, 6, 5);
  EXPECT_FALSE(accumulates_rows(rows_short.g.graph, rows_short.pool()));
  EXPECT_FALSE(accumulates_rows(cols_short.g.graph, cols_short.pool()));
  EXPECT_FALSE(accumulates_rows(floats.g.graph, floats.pool()));
}

TEST(PartitionScheme, ARowSchemeEndingAtAGlobalPoolWalksThePoolsInputRows) {
  // The pool's rows and cols are reduce axes of the ACG (one output index
  // over the whole input axis): its output is reduced along A (condition 1),
  // and the parts cut the 6 rows of its input.
  ConvThenPool net(ir::DType::kI8, OpType::kAveragePool, 6, 5);
  const analysis::BufferGraph bg = analysis::build_buffer_graph(net.g.graph);
  const AxisConnectingGraph acg = build_acg(net.g.graph);
  EXPECT_GE(acg.reduce_vertex_of_node.at(1), 0);
  Result<PartitionScheme> scheme = make_partition_scheme(net.g.graph, bg, acg, {0, 1}, PartitionAxis::kRows, 4);
  ASSERT_TRUE(scheme) << scheme.error().message;
  EXPECT_EQ(scheme->extent, 6);
  EXPECT_EQ(scheme->count_parts(), 2);
  EXPECT_EQ(scheme->outputs, (std::vector<ir::TensorId>{net.p}));
}

}  // namespace
}  // namespace tinyfit::partition
