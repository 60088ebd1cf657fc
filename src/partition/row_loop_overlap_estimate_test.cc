// The overlap the search scores a row loop with, checked by hand on a chain.
#include "partition/row_loop_overlap_estimate.h"

#include <gtest/gtest.h>

#include "partition/acg.h"
#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

// x 1x16x16x8 -> 3x3 "same" conv to 8 channels (a) -> 3x3 "same" conv to 1
// channel (y), float32: x rows 16 x 8 x 4 = 512 bytes, y rows 16 x 1 x 4 = 64.
struct Chain {
  TestGraph g;
  ir::TensorId x, y;
};
Chain make_chain() {
  Chain c;
  c.x = c.g.input({1, 16, 16, 8});
  const ir::TensorId a = c.g.node(OpType::kConv2D, {c.x, c.g.constant({8, 3, 3, 8})}, make_conv_attrs(3, 1, 1));
  c.y = c.g.node(OpType::kConv2D, {a, c.g.constant({1, 3, 3, 8})}, make_conv_attrs(3, 1, 1));
  c.g.output(c.y);
  return c;
}

TEST(RowLoopOverlapEstimate, AChainLoopsOutputSharesAllItsBytesWithTheImageBelowTheLimit) {
  const Chain c = make_chain();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(c.g.graph);
  Result<PartitionScheme> scheme =
      make_partition_scheme(c.g.graph, bg, build_acg(c.g.graph), {0, 1}, PartitionAxis::kRows, 1);
  ASSERT_TRUE(scheme.has_value()) << scheme.error().format();
  Result<RowGeometry> geometry = compute_row_geometry(c.g.graph, bg, *scheme);
  ASSERT_TRUE(geometry.has_value()) << geometry.error().format();
  const std::vector<RowLoopOverlapPair> pairs = estimate_row_loop_overlaps(c.g.graph, bg, *scheme, *geometry, 16);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].input_buffer, bg.buffer_of_tensor[static_cast<size_t>(c.x)]);
  EXPECT_EQ(pairs[0].output_buffer, bg.buffer_of_tensor[static_cast<size_t>(c.y)]);
  // Iteration i writes y rows up to i + 1; the next read of x is iteration
  // i + 1's first conv, from row i + 1 (a rows [i + 2, i + 3) need x rows
  // [i + 1, i + 4)). L = min over i of (i + 1) * 512 - (i + 1) * 64 = 448.
  EXPECT_EQ(pairs[0].limit_bytes, 448);
  EXPECT_EQ(pairs[0].shared_bytes, 16 * 16 * 1 * 4);  // offset 0: all of y
}

TEST(RowLoopOverlapEstimate, TokenLoopsDeclareNone) {
  const Chain c = make_chain();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(c.g.graph);
  Result<PartitionScheme> scheme =
      make_partition_scheme(c.g.graph, bg, build_acg(c.g.graph), {0, 1}, PartitionAxis::kRows, 1);
  ASSERT_TRUE(scheme.has_value());
  Result<RowGeometry> geometry = compute_row_geometry(c.g.graph, bg, *scheme);
  ASSERT_TRUE(geometry.has_value());
  scheme->axis = PartitionAxis::kTokens;
  EXPECT_TRUE(estimate_row_loop_overlaps(c.g.graph, bg, *scheme, *geometry, 16).empty());
}

}  // namespace
}  // namespace tinyfit::partition
