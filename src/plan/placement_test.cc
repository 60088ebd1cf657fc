// The shared pieces of placement: the live-bytes lower bound, the algorithm
// table, and the records built from a buffer graph.
#include "plan/placement.h"

#include <gtest/gtest.h>

#include "plan/placement_input.h"

namespace tinyfit::plan {
namespace {

TEST(LivePeakBytes, IsTheLargestSumOfBuffersLiveAtOneStep) {
  // step 0: 10 + 20 = 30; step 1: 20 + 5 = 25; step 2: 5.
  std::vector<PlacementBuffer> b = {{0, 10, 1, 0, 0}, {1, 20, 1, 0, 1}, {2, 5, 1, 1, 2}};
  EXPECT_EQ(compute_live_peak_bytes(b), 30);
}

TEST(LivePeakBytes, ADeclaredInPlacePairCountsTheSmallerBufferOnce) {
  // Both live at step 1: 100 + 60 - min(100, 60) = 100.
  std::vector<PlacementBuffer> b = {{0, 100, 1, 0, 1}, {1, 60, 1, 1, 2, 0}};
  EXPECT_EQ(compute_live_peak_bytes(b), 100);
}

TEST(PlacementTable, NamesEveryAlgorithmOnceInTieBreakOrder) {
  std::vector<std::string_view> names;
  for (const PlacementAlgorithm& a : list_placement_algorithms()) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string_view>{"greedy-by-size", "greedy-by-conflicts", "best-fit",
                                                   "hill-climb", "sweep-search", "exact", "best"}));
  ASSERT_NE(find_placement_algorithm("best-fit"), nullptr);
  EXPECT_EQ(find_placement_algorithm("no-such"), nullptr);
}

// in(100) -> A [ws 7] -> a(50) -> B -> out(10)
analysis::BufferGraph chain_with_workspace() {
  analysis::BufferGraph bg;
  bg.buffers = {{100, -1, {0}, false, "in"}, {50, 0, {1}, false, "a"}, {10, 1, {}, true, "out"}};
  bg.operators = {{"A", {0}, {1}, 7, 0}, {"B", {1}, {2}, 0, 1}};
  return bg;
}

TEST(PlacementInput, WorkspacesBecomeOneStepBuffersSoTheArenaHoldsThePeak) {
  analysis::BufferGraph bg = chain_with_workspace();
  const analysis::Order order = analysis::given_order(bg);
  const analysis::MemoryProfile profile = analysis::compute_memory_profile(bg, order);
  std::vector<PlacementBuffer> records = build_placement_buffers(bg, profile, order, 4);
  ASSERT_EQ(records.size(), 4u);  // three tensors, one workspace
  EXPECT_EQ(records[3].id, workspace_buffer_id(bg, 0));
  EXPECT_EQ(records[3].bytes, 7);
  EXPECT_EQ(records[3].first_step, 0);
  EXPECT_EQ(records[3].last_step, 0);
  EXPECT_EQ(records[0].alignment, 4);
  // Peak at step 0: in 100 + a 50 + workspace 7 = 157.
  EXPECT_EQ(profile.peak_bytes, 157);
  EXPECT_EQ(compute_live_peak_bytes(records), profile.peak_bytes);
}

TEST(Fragmentation, IsArenaOverPeak) {
  EXPECT_DOUBLE_EQ(compute_fragmentation(150, 100), 1.5);
  EXPECT_DOUBLE_EQ(compute_fragmentation(0, 0), 1.0);
}

}  // namespace
}  // namespace tinyfit::plan
