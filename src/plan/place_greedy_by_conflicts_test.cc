#include "plan/place_greedy_by_conflicts.h"

#include <gtest/gtest.h>

#include "plan/verify_placement.h"

namespace tinyfit::plan {
namespace {

Placement place(const std::vector<PlacementBuffer>& b) {
  Placement p = place_greedy_by_conflicts(b, PlacementOptions{});
  EXPECT_TRUE(verify_placement(b, p));
  return p;
}

TEST(PlaceGreedyByConflicts, ConflictingBuffersNeverOverlap) {
  std::vector<PlacementBuffer> b = {{0, 10, 1, 0, 1}, {1, 10, 1, 1, 2}, {2, 10, 1, 2, 3}};
  Placement p = place(b);
  EXPECT_NE(p.offsets[0], p.offsets[1]);
  EXPECT_NE(p.offsets[1], p.offsets[2]);
  EXPECT_EQ(p.arena_bytes, 20);  // 0 and 2 share: their lifetimes are disjoint
}

TEST(PlaceGreedyByConflicts, TheMostConstrainedBufferGoesFirstAndBeatsLargestFirst) {
  // id0 70 steps 3-4, id1 70 steps 2-4, id2 80 step 2, id3 50 steps 3-5.
  // Conflict load (own bytes + bytes of overlapping buffers):
  //   id1: 70+70+80+50 = 270; id0: 70+70+50 = 190; id3: 50+70+70 = 190;
  //   id2: 80+70 = 150. Order id1, id0 (tie with id3 broken by size), id3, id2:
  //   id1 -> 0, id0 -> 70, id3 -> 140, id2 (meets only id1) -> 70. Arena 190
  //   = the live peak at step 3 (70+70+50): optimal.
  // Largest first puts id2 at 0, id1 at 80, id0 at 0, and id3 finds the hole
  // [70,80) too small -> 150: arena 200.
  std::vector<PlacementBuffer> b = {{0, 70, 1, 3, 4}, {1, 70, 1, 2, 4}, {2, 80, 1, 2, 2}, {3, 50, 1, 3, 5}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{70, 0, 70, 140}));
  EXPECT_EQ(p.arena_bytes, 190);
  EXPECT_EQ(p.algorithm, "greedy-by-conflicts");
}

TEST(PlaceGreedyByConflicts, AlignmentHolds) {
  std::vector<PlacementBuffer> b = {{0, 3, 1, 0, 0}, {1, 3, 16, 0, 0}, {2, 3, 8, 0, 0}};
  Placement p = place(b);
  EXPECT_EQ(p.offsets[1] % 16, 0);
  EXPECT_EQ(p.offsets[2] % 8, 0);
}

}  // namespace
}  // namespace tinyfit::plan
