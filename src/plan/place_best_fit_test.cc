#include "plan/place_best_fit.h"

#include <gtest/gtest.h>

#include "plan/verify_placement.h"

namespace tinyfit::plan {
namespace {

Placement place(const std::vector<PlacementBuffer>& b) {
  Placement p = place_best_fit(b, PlacementOptions{});
  EXPECT_TRUE(verify_placement(b, p));
  return p;
}

TEST(PlaceBestFit, ConflictingBuffersNeverOverlap) {
  std::vector<PlacementBuffer> b = {{0, 10, 1, 0, 0}, {1, 10, 1, 0, 0}, {2, 10, 1, 0, 0}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 10, 20}));
  EXPECT_EQ(p.arena_bytes, 30);
}

TEST(PlaceBestFit, TakesTheSmallestGapThatFitsNotTheFirst) {
  // In order of first_step: X(100, 0-1) -> 0, Y(50, 0-2) -> 100, Z(40, 0-1)
  // -> 150, W(50, 1-2) -> 190. At step 2 only Y [100,150) and W [190,240) are
  // live: gaps [0,100) (100 bytes) and [150,190) (40 bytes). E(30, step 2)
  // goes to the 40-byte gap at 150; first fit would take 0. Arena 240 = the
  // live peak at step 1 (100+50+40+50).
  std::vector<PlacementBuffer> b = {
      {0, 100, 1, 0, 1}, {1, 50, 1, 0, 2}, {2, 40, 1, 0, 1}, {3, 50, 1, 1, 2}, {4, 30, 1, 2, 2}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 100, 150, 190, 150}));
  EXPECT_EQ(p.arena_bytes, 240);
  EXPECT_EQ(p.algorithm, "best-fit");
}

TEST(PlaceBestFit, BeatsTheGreedyOrdersWhenLifetimesArriveInOrder) {
  // id0 60 steps 0-1, id1 80 step 0, id2 20 steps 1-2, id3 70 steps 2-3.
  // Order id1 (80) -> 0, id0 -> 80, id2 (meets id0 [80,140)) -> gap [0,80)
  // is the only bounded gap -> 0, id3 (meets id2 [0,20)) -> 20. Arena 140 =
  // the live peak at step 0 (80+60). Largest first gives 160 (id1 0, id3 0,
  // id0 80, id2 140).
  std::vector<PlacementBuffer> b = {{0, 60, 1, 0, 1}, {1, 80, 1, 0, 0}, {2, 20, 1, 1, 2}, {3, 70, 1, 2, 3}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{80, 0, 0, 20}));
  EXPECT_EQ(p.arena_bytes, 140);
}

TEST(PlaceBestFit, AlignmentHolds) {
  std::vector<PlacementBuffer> b = {{0, 5, 1, 0, 0}, {1, 4, 4, 0, 0}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{0, 8}));
}

}  // namespace
}  // namespace tinyfit::plan
