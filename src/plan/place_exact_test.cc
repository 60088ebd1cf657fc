#include "plan/place_exact.h"

#include <gtest/gtest.h>

#include <chrono>

#include "plan/verify_placement.h"

namespace tinyfit::plan {
namespace {

// id0 70 steps 3-4, id1 60 step 1, id2 20 steps 0-2, id3 50 steps 2-4.
// Live bytes: step 0: 20, step 1: 80, step 2: 70, steps 3-4: 120.
// Optimum 120: id3 [0,50) under id0 [50,120); id1 [0,60) and id2 [60,80)
// at step 1; at step 2 id2 [60,80) clears id3 [0,50). Every greedy leaves
// a hole too small for id2 (greedy by size 140, by conflicts 130, best fit 140);
// the solver (or hill climbing over orders) finds 120.
std::vector<PlacementBuffer> hole_instance() {
  return {{0, 70, 1, 3, 4}, {1, 60, 1, 1, 1}, {2, 20, 1, 0, 2}, {3, 50, 1, 2, 4}};
}

// Two 3-byte buffers aligned to 4, live together: every heuristic gives 7,
// above the live peak 6, so only the solver can prove 7 optimal.
std::vector<PlacementBuffer> padded_pair() { return {{0, 3, 4, 0, 0}, {1, 3, 4, 0, 0}}; }

TEST(PlaceExact, FindsTheOptimumTheHeuristicsMiss) {
  std::vector<PlacementBuffer> b = hole_instance();
  Placement p = place_exact(b, PlacementOptions{});
  EXPECT_TRUE(verify_placement(b, p));
  EXPECT_EQ(p.arena_bytes, 120);
  EXPECT_TRUE(p.proven_optimal);
  EXPECT_EQ(p.algorithm, "exact");
}

TEST(PlaceExact, ProvesAnOptimumAboveTheLivePeakWhenAlignmentForcesPadding) {
  // Live peak 6, but the second buffer cannot start before 4: 4 + 3 = 7.
  std::vector<PlacementBuffer> b = padded_pair();
  EXPECT_EQ(compute_live_peak_bytes(b), 6);
  Placement p = place_exact(b, PlacementOptions{});
  EXPECT_TRUE(verify_placement(b, p));
  EXPECT_EQ(p.arena_bytes, 7);
  EXPECT_TRUE(p.proven_optimal);
}

TEST(PlaceExact, UsesADeclaredInPlacePairWhenItHelps) {
  // in(40, 0-1), out(40, 1-2) declared in place over in, side(30, 0-2):
  // sharing gives 70; without it 110.
  std::vector<PlacementBuffer> b = {{0, 40, 1, 0, 1}, {1, 40, 1, 1, 2, 0}, {2, 30, 1, 0, 2}};
  Placement p = place_exact(b, PlacementOptions{});
  EXPECT_TRUE(verify_placement(b, p));
  EXPECT_EQ(p.arena_bytes, 70);
}

TEST(PlaceExact, FallsBackToTheBestHeuristicAboveTheSizeCapAndSaysSo) {
  std::vector<PlacementBuffer> b = padded_pair();
  PlacementOptions options;
  options.exact_max_buffers = 1;
  Placement p = place_exact(b, options);
  EXPECT_TRUE(verify_placement(b, p));
  EXPECT_EQ(p.arena_bytes, 7);
  EXPECT_EQ(p.algorithm, "greedy-by-size");  // all tie; the first in table order is kept
  EXPECT_FALSE(p.proven_optimal);
  EXPECT_NE(p.note.find("cap"), std::string::npos) << p.note;
}

TEST(PlaceExact, FallsBackWhenTheDeadlineHasPassed) {
  std::vector<PlacementBuffer> b = padded_pair();
  PlacementOptions options;
  options.deadline = Deadline(std::chrono::duration<double>(0));
  Placement p = place_exact(b, options);
  EXPECT_TRUE(verify_placement(b, p));
  EXPECT_FALSE(p.proven_optimal);
  EXPECT_NE(p.note.find("time limit"), std::string::npos) << p.note;
}

TEST(PlaceExact, SkipsTheSolverWhenAHeuristicMeetsTheLowerBound) {
  std::vector<PlacementBuffer> b = {{0, 100, 1, 0, 1}, {1, 50, 1, 1, 2}, {2, 50, 1, 2, 3}};
  Placement p = place_exact(b, PlacementOptions{});
  EXPECT_EQ(p.arena_bytes, 150);
  EXPECT_TRUE(p.proven_optimal);
  EXPECT_NE(p.note.find("lower bound"), std::string::npos) << p.note;
}

}  // namespace
}  // namespace tinyfit::plan
