#include "plan/place_greedy_by_size.h"

#include <gtest/gtest.h>

#include "plan/verify_placement.h"

namespace tinyfit::plan {
namespace {

Placement place(const std::vector<PlacementBuffer>& b) {
  Placement p = place_greedy_by_size(b, PlacementOptions{});
  EXPECT_TRUE(verify_placement(b, p));
  return p;
}

TEST(PlaceGreedyBySize, ConflictingBuffersNeverOverlap) {
  std::vector<PlacementBuffer> b = {{0, 10, 1, 0, 0}, {1, 10, 1, 0, 0}};
  Placement p = place(b);
  EXPECT_NE(p.offsets[0], p.offsets[1]);
  EXPECT_EQ(p.arena_bytes, 20);
}

TEST(PlaceGreedyBySize, BuffersWithDisjointLifetimesShareOffsets) {
  std::vector<PlacementBuffer> b = {{0, 10, 1, 0, 0}, {1, 10, 1, 1, 1}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(p.arena_bytes, 10);
}

TEST(PlaceGreedyBySize, ReachesThePeakOnAStaircase) {
  // A(100, steps 0-1), B(50, 1-2), C(50, 2-3). Peak at step 1: 150.
  // A -> 0; B conflicts A -> 100; C conflicts only B -> first gap [0,100) -> 0.
  std::vector<PlacementBuffer> b = {{0, 100, 1, 0, 1}, {1, 50, 1, 1, 2}, {2, 50, 1, 2, 3}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 100, 0}));
  EXPECT_EQ(p.arena_bytes, 150);
  EXPECT_EQ(p.algorithm, "greedy-by-size");
}

TEST(PlaceGreedyBySize, AlignmentPushesTheNextBufferUp) {
  // A(5 bytes) first at 0; B(4, align 4) at align_up(5, 4) = 8: arena 12, not 9.
  std::vector<PlacementBuffer> b = {{0, 5, 1, 0, 0}, {1, 4, 4, 0, 0}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 8}));
  EXPECT_EQ(p.arena_bytes, 12);
}

TEST(PlaceGreedyBySize, EqualSizesFallBackToFirstStepThenId) {
  // Same bytes: id 5 (first_step 0) goes first and takes 0, then 3, then 4.
  std::vector<PlacementBuffer> b = {{4, 8, 1, 1, 1}, {3, 8, 1, 1, 1}, {5, 8, 1, 0, 1}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{16, 8, 0}));
}

TEST(PlaceGreedyBySize, IsNotOptimalWhenTheLargestFirstLeavesAHoleTooSmall) {
  // id0 70 steps 3-4, id1 60 steps 1-1, id2 20 steps 0-2, id3 50 steps 2-4.
  // Live: step 1: 60+20 = 80, step 3: 70+50 = 120 (the optimum, see PlaceExact).
  // Largest first: id0 -> 0, id1 -> 0 (disjoint), id3 -> 70, id2 meets id1
  // [0,60) and id3 [70,120): the hole [60,70) is 10 < 20 -> 120; arena 140.
  std::vector<PlacementBuffer> b = {{0, 70, 1, 3, 4}, {1, 60, 1, 1, 1}, {2, 20, 1, 0, 2}, {3, 50, 1, 2, 4}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 0, 120, 70}));
  EXPECT_EQ(p.arena_bytes, 140);
}

TEST(PlaceGreedyBySize, AnInPlaceOutputTakesItsInputsOffset) {
  // out(40) overwrites in(40) at step 1; other(30) lives through both steps.
  // Arena 70, not 110.
  std::vector<PlacementBuffer> b = {{0, 40, 1, 0, 1}, {1, 40, 1, 1, 2, 0}, {2, 30, 1, 0, 2}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets[0], p.offsets[1]);
  EXPECT_EQ(p.arena_bytes, 70);
}

}  // namespace
}  // namespace tinyfit::plan
