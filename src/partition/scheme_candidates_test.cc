// Where Algorithm 1 looks (stretches around bottlenecks) and how finely it
// cuts (GenSchemes' tiles).
#include "partition/scheme_candidates.h"

#include <gtest/gtest.h>

#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

TEST(ListTiles, EachTileGivesADistinctNumberOfPartsOfAtLeastTwo) {
  // 7 rows: tiles 1..3 give 7, 4, 3 parts; 4, 5, 6 all give 2 (the first kept).
  EXPECT_EQ(list_tiles(7, 10), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_TRUE(list_tiles(1, 10).empty());  // one row cannot be cut
  EXPECT_EQ(list_tiles(2, 10), (std::vector<int64_t>{1}));
}

TEST(ListTiles, ManyTilesAreThinnedOnALogScaleOfParts) {
  // 112 rows: 20 distinct part counts; 5 kept, from 112 parts (tile 1) to 2.
  const std::vector<int64_t> tiles = list_tiles(112, 5);
  ASSERT_EQ(tiles.size(), 5u);
  EXPECT_EQ(tiles.front(), 1);
  EXPECT_EQ(tiles.back(), 56);  // ceil(112 / 56) = 2 parts
  EXPECT_TRUE(std::is_sorted(tiles.begin(), tiles.end()));
}

TEST(CandidateStretches, StretchesHoldABottleneckOperatorAndEndAtNarrowPositions) {
  // A chain of 5 convolutions (one cell); the bottleneck is the buffer
  // operator 2 makes (read by 3). Every position of a chain is narrow.
  TestGraph g;
  ir::TensorId t = g.input({1, 8, 8, 4});
  for (int i = 0; i < 5; ++i) {
    t = g.node(OpType::kConv2D, {t, g.constant({4, 3, 3, 4})}, make_conv_attrs(3, 1, 1));
  }
  g.output(t);
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const Cell cell{{0, 1, 2, 3, 4}};
  const int bottleneck = bg.operators[2].outputs[0];
  const std::vector<Stretch> stretches = list_candidate_stretches(bg, cell, {bottleneck}, 1);
  // Anchors 2 (maker) and 3 (reader); one end per side plus the cell's bounds:
  // starts {2, 0} x ends {2, 4} for anchor 2, starts {3, 0} x ends {3, 4} for 3.
  EXPECT_EQ(stretches, (std::vector<Stretch>{{0, 2}, {0, 3}, {0, 4}, {2, 2}, {2, 4}, {3, 3}, {3, 4}}));
}

}  // namespace
}  // namespace tinyfit::partition
