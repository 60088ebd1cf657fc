// The order of a row loop's body (partition/order_loop_body.h) on a
// hand-built loop whose base order keeps a wide band live across a branch.
#include "partition/order_loop_body.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/memory_profile.h"
#include "partition/acg.h"
#include "partition/partition_scheme.h"
#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

ir::TensorId add_pointwise(TestGraph& g, ir::TensorId x, int64_t channels) {
  const int64_t in_channels = g.graph.tensor(x).shape[3];
  return g.node(OpType::kConv2D, {x, g.constant({channels, 1, 1, in_channels})}, make_conv_attrs(1, 1, 0));
}

TEST(OrderLoopBody, RunsTheLastReaderOfAWideBandBeforeABranchThatDoesNotNeedIt) {
  // NASNet's first loop in small: x (8 rows of 8 cols) -> a (16 channels: a
  // row is 8 x 16 x 4 = 512 bytes), read early by c (1 channel, 32 bytes a
  // row) and late by r (4 channels, 128 bytes); c -> b1 -> b2 -> b3 (4
  // channels each); the sink adds b3 and r. One row per iteration, every
  // band partial. In the given order (a, c, b1, b2, b3, r, add) a's row is
  // live through the b chain: at b3, a + b2 + b3 = 512 + 128 + 128 = 768
  // bytes. Running r right after c frees a's row before the chain: at r,
  // a + c + r = 512 + 32 + 128 = 672 bytes, and less after.
  TestGraph g;  // float32
  const ir::TensorId x = g.input({1, 8, 8, 4});
  const ir::TensorId a = add_pointwise(g, x, 16);
  const ir::TensorId c = add_pointwise(g, a, 1);
  const ir::TensorId b1 = add_pointwise(g, c, 4);
  const ir::TensorId b2 = add_pointwise(g, b1, 4);
  const ir::TensorId b3 = add_pointwise(g, b2, 4);
  const ir::TensorId r = add_pointwise(g, a, 4);
  g.output(g.node(OpType::kAdd, {b3, r}));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const std::vector<int> ops{0, 1, 2, 3, 4, 5, 6};
  Result<PartitionScheme> scheme = make_partition_scheme(g.graph, bg, build_acg(g.graph), ops, PartitionAxis::kRows, 1);
  ASSERT_TRUE(scheme) << scheme.error().message;
  Result<RowGeometry> geometry = compute_row_geometry(g.graph, bg, *scheme);
  ASSERT_TRUE(geometry) << geometry.error().message;
  for (const ir::TensorId t : {a, c, b1, b2, b3, r}) EXPECT_EQ(geometry->find(t)->holding, RowHolding::kPartial);
  for (const int op : ops) ASSERT_EQ(bg.operators[static_cast<size_t>(op)].workspace_bytes, 0);

  const LoopBodyOrder body = order_loop_body(g.graph, bg, ops, *geometry);
  EXPECT_EQ(body.peak_partial_bytes, 672);
  const auto at = [&](int op) { return std::find(body.ops.begin(), body.ops.end(), op) - body.ops.begin(); };
  EXPECT_LT(at(5), at(2)) << "r runs before the b chain";
  EXPECT_TRUE(analysis::is_topological_order(bg, body.ops));
  // The geometry scores the loop in that order, as the lowering runs it.
  EXPECT_EQ(geometry->peak_partial_bytes, 672);
}

TEST(OrderLoopBody, KeepsAChainsOrder) {
  // A chain has one order: the body comes back as it went in.
  TestGraph g;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  g.output(add_pointwise(g, add_pointwise(g, x, 8), 4));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  Result<PartitionScheme> scheme =
      make_partition_scheme(g.graph, bg, build_acg(g.graph), {0, 1}, PartitionAxis::kRows, 1);
  ASSERT_TRUE(scheme) << scheme.error().message;
  Result<RowGeometry> geometry = compute_row_geometry(g.graph, bg, *scheme);
  ASSERT_TRUE(geometry) << geometry.error().message;
  EXPECT_EQ(order_loop_body(g.graph, bg, {0, 1}, *geometry).ops, (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace tinyfit::partition
