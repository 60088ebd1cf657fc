// The "choose" pass on plain candidate records: the figures below are made up
// for each rule (no plan is needed), so every expectation follows from the
// rule stated in compile_choice.h.
#include "driver/compile_choice.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace tinyfit::driver {
namespace {

constexpr double kNone = std::numeric_limits<double>::infinity();  // --latency-budget none

// `predicted` instructions (the latency model's figure); kernel calls follow
// it (one call per 1,000 instructions) unless a test sets them apart.
CompileCandidate make_candidate(std::string name, LatencyRank rank, int64_t arena_bytes, double predicted) {
  CompileCandidate c;
  c.name = std::move(name);
  c.rank = rank;
  c.built = true;
  c.peak_bytes = arena_bytes;
  c.arena_bytes = arena_bytes;
  c.predicted_instructions = predicted;
  c.kernel_calls = static_cast<int64_t>(predicted / 1000);
  return c;
}

CompileCandidate make_not_built(std::string name) {
  CompileCandidate c;
  c.name = std::move(name);
  c.rank = LatencyRank::kPex;
  c.note = "partial execution (pex) is not built yet";
  return c;
}

// A typical set: ordering shrinks the arena at no extra instructions, in-place
// at a few (line-buffer copies), partial execution further at 1.2x.
std::vector<CompileCandidate> make_typical_candidates() {
  return {make_candidate("ordinary", LatencyRank::kOrdinary, 5000, 10000),
          make_candidate("order:best", LatencyRank::kOrder, 4000, 10000),
          make_candidate("order:best+inplace", LatencyRank::kInplace, 3000, 10100),
          make_candidate("pex+inplace", LatencyRank::kPex, 1000, 12000)};
}

TEST(ChooseCandidate, WithoutBudgetTheSmallestArenaWins) {
  EXPECT_EQ(choose_candidate(make_typical_candidates(), std::nullopt, kNone), 3u);
}

TEST(ChooseCandidate, WithoutBudgetEqualArenasGoToFewerInstructionsThenFewerTechniques) {
  std::vector<CompileCandidate> c = {make_candidate("ordinary", LatencyRank::kOrdinary, 5000, 10000),
                                     make_candidate("pex", LatencyRank::kPex, 3000, 30000),
                                     make_candidate("order:best+inplace", LatencyRank::kInplace, 3000, 10000),
                                     make_candidate("order:best", LatencyRank::kOrder, 3000, 10000)};
  EXPECT_EQ(choose_candidate(c, std::nullopt, kNone), 3u);
}

TEST(ChooseCandidate, WithBudgetTheLeastLatencyOverheadThatFitsWins) {
  const std::vector<CompileCandidate> c = make_typical_candidates();
  EXPECT_EQ(choose_candidate(c, 6000, kNone), 0u);  // everything fits: ordinary execution
  EXPECT_EQ(choose_candidate(c, 5000, kNone), 0u);  // the arena may fill the budget exactly
  EXPECT_EQ(choose_candidate(c, 4999, kNone), 1u);  // a better order, same instructions
  EXPECT_EQ(choose_candidate(c, 3500, kNone), 2u);  // in place
  EXPECT_EQ(choose_candidate(c, 2999, kNone), 3u);  // only partial execution fits
}

TEST(ChooseCandidate, NothingFitsGivesNoChoiceAndTheSmallestIsReported) {
  const std::vector<CompileCandidate> c = make_typical_candidates();
  EXPECT_EQ(choose_candidate(c, 999, kNone), std::nullopt);
  EXPECT_EQ(find_smallest_candidate(c), 3u);
}

TEST(ChooseCandidate, TechniquesNotBuiltYetAreNeverChosen) {
  std::vector<CompileCandidate> c = make_typical_candidates();
  c[3] = make_not_built("pex+inplace");
  EXPECT_EQ(choose_candidate(c, std::nullopt, kNone), 2u);
  EXPECT_EQ(choose_candidate(c, 2999, kNone), std::nullopt);
  EXPECT_EQ(find_smallest_candidate(c), 2u);
}

TEST(ChooseCandidate, FewerPredictedInstructionsBeatAnEarlierTechnique) {
  // Two partial-execution plans: the larger tile (fewer instructions) wins under a budget both fit.
  std::vector<CompileCandidate> c = {make_candidate("ordinary", LatencyRank::kOrdinary, 5000, 10000),
                                     make_candidate("pex (tile 1)", LatencyRank::kPex, 1000, 14000),
                                     make_candidate("pex (tile 4)", LatencyRank::kPex, 1800, 11000)};
  EXPECT_EQ(choose_candidate(c, 2000, kNone), 2u);
  EXPECT_EQ(choose_candidate(c, std::nullopt, kNone), 1u);
}

// An overlap plan fuses inverted bottlenecks into fewer calls of kernels
// without DSP fast paths: its prediction, not its call count, says it is
// slower, so under a budget it is chosen only when nothing faster fits.
TEST(ChooseCandidate, WithBudgetASlowerOverlapPlanIsChosenOnlyWhenNothingElseFits) {
  std::vector<CompileCandidate> candidates = make_typical_candidates();
  candidates.push_back(make_candidate("order:best+overlap", LatencyRank::kOverlap, 500, 15000));
  candidates.back().kernel_calls = 4;
  EXPECT_EQ(choose_candidate(candidates, 1000, kNone), 3u);  // pex+inplace fits and is predicted faster
  EXPECT_EQ(choose_candidate(candidates, 999, kNone), 4u);   // only the overlap plan fits
  EXPECT_EQ(choose_candidate(candidates, std::nullopt, kNone), 4u);  // no budget: the smallest arena
}

TEST(ChooseCandidate, WithoutSramTheLatencyBudgetBoundsTheChoice) {
  const std::vector<CompileCandidate> c = make_typical_candidates();  // 1.0, 1.0, 1.01, 1.2 x ordinary
  EXPECT_EQ(choose_candidate(c, std::nullopt, 1.05), 2u);   // pex+inplace is 20% slower
  EXPECT_EQ(choose_candidate(c, std::nullopt, 1.2), 3u);    // exactly at the budget
  EXPECT_EQ(choose_candidate(c, std::nullopt, 1.0), 1u);    // no slower than ordinary
  EXPECT_EQ(choose_candidate(c, std::nullopt, kNone), 3u);  // the smallest memory
  EXPECT_EQ(choose_candidate(c, 2999, 1.05), 3u);           // --sram decides: only pex fits
  EXPECT_TRUE(within_latency_budget(c, c[2], 1.05));
  EXPECT_FALSE(within_latency_budget(c, c[3], 1.05));
}

TEST(ChooseCandidate, WithoutAnOrdinaryPredictionTheBudgetCannotJudge) {
  std::vector<CompileCandidate> c = make_typical_candidates();
  c[0].predicted_instructions.reset();
  EXPECT_EQ(choose_candidate(c, std::nullopt, 1.05), 3u);
  c = make_typical_candidates();
  c[3].predicted_instructions.reset();  // unknown latency is not within a budget
  EXPECT_EQ(choose_candidate(c, std::nullopt, 1.05), 2u);
  EXPECT_EQ(find_smallest_candidate(c), 3u);
}

TEST(ChooseCandidate, PredictedInstructionsNotKernelCallsDecide) {
  // More calls of cheaper kernels beat fewer calls of dearer ones.
  std::vector<CompileCandidate> c = {make_candidate("ordinary", LatencyRank::kOrdinary, 5000, 10000),
                                     make_candidate("order:best+inplace", LatencyRank::kInplace, 3000, 10500),
                                     make_candidate("pex", LatencyRank::kPex, 3000, 10200)};
  c[2].kernel_calls = 90;
  EXPECT_EQ(choose_candidate(c, 4000, kNone), 2u);
}

TEST(ChooseCandidate, ACandidateWithoutAPredictionComesAfterEveryPredictedOne) {
  std::vector<CompileCandidate> c = make_typical_candidates();
  c[1].predicted_instructions.reset();
  EXPECT_EQ(choose_candidate(c, 4999, kNone), 2u);  // in place, predicted, beats the unpredicted order
  EXPECT_EQ(choose_candidate(c, 3500, kNone), 2u);
}

}  // namespace
}  // namespace tinyfit::driver
