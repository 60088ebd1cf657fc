// choose_band_stages against a brute force over every sequence of stages on
// random small tails: the chosen sequence is consecutive from operator 0,
// ends at or after the first operator the rest may run whole from, and its
// predicted seconds equal the fewest any such sequence reaches (the tail
// whole included when it may run whole from operator 0); no sequence exactly
// when the brute force finds none.
#include "devices/choose_band_stage.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace tinyfit::devices {
namespace {

double whole_seconds(const std::vector<int64_t>& node_macs, size_t from, const StageRates& rates) {
  double seconds = 0.0;
  for (size_t p = from; p < node_macs.size(); ++p) seconds += static_cast<double>(node_macs[p]) * rates.seconds_per_mac;
  return seconds;
}

// The predicted seconds of `chosen` (consecutive stages from 0, then the rest whole).
double sequence_seconds(const std::vector<int64_t>& node_macs, const std::vector<BandStageEstimate>& stages,
                        const std::vector<size_t>& chosen, const StageRates& rates) {
  double seconds = 0.0;
  size_t at = 0;
  for (size_t i : chosen) {
    seconds += estimate_stage_seconds(stages[i], rates);
    at = static_cast<size_t>(stages[i].end);
  }
  return seconds + whole_seconds(node_macs, at, rates);
}

// The fewest seconds of any sequence from operator `from` whose rest runs
// whole from first_whole or later (infinity: none).
double brute_force(const std::vector<int64_t>& node_macs, const std::vector<BandStageEstimate>& stages, size_t from,
                   const StageRates& rates, size_t first_whole) {
  double best = from >= first_whole ? whole_seconds(node_macs, from, rates) : std::numeric_limits<double>::infinity();
  for (const BandStageEstimate& s : stages) {
    if (static_cast<size_t>(s.begin) != from) continue;
    best = std::min(best, estimate_stage_seconds(s, rates) +
                              brute_force(node_macs, stages, static_cast<size_t>(s.end), rates, first_whole));
  }
  return best;
}

TEST(ChooseBandStages, ASlowLinkKeepsTheTailWhole) {
  const std::vector<int64_t> macs = {500, 500};
  const std::vector<BandStageEstimate> stages = {{0, 1, {250, 260}, 1000}};
  EXPECT_EQ(choose_band_stages(macs, stages, {1e-3, 1e6}, 0), std::vector<size_t>{0});  // 0.26 + 0.001 + 0.5 < 1 s
  EXPECT_EQ(choose_band_stages(macs, stages, {1e-3, 1.0}, 0), std::vector<size_t>{});   // the link alone takes 1000 s
}

TEST(ChooseBandStages, ATailThatFitsOnlyLaterRunsByBandsHoweverSlowTheLink) {
  const std::vector<int64_t> macs = {500, 500};
  const std::vector<BandStageEstimate> stages = {{0, 1, {250, 260}, 1000}};
  // The link takes 1000 s, but the rest may run whole only from operator 1.
  EXPECT_EQ(choose_band_stages(macs, stages, {1e-3, 1.0}, 1), std::vector<size_t>{0});
  EXPECT_EQ(choose_band_stages(macs, stages, {1e-3, 1.0}, 2), std::nullopt);  // no stage reaches operator 2
}

TEST(ChooseBandStages, TwoShortStagesBeatOneLongOneWhoseHaloGrows) {
  const std::vector<int64_t> macs = {400, 400, 400, 400};
  const std::vector<BandStageEstimate> stages = {
      {0, 3, {700, 700}, 0}, {0, 2, {450, 450}, 0}, {2, 3, {220, 220}, 0}};
  EXPECT_EQ(choose_band_stages(macs, stages, {1e-3, 0}, 0), (std::vector<size_t>{1, 2}));  // 450 + 220 + 400
}

TEST(ChooseBandStages, RandomStagesGiveTheBruteForcesFewestSeconds) {
  std::mt19937 random(14);
  int split = 0;
  int constrained = 0;
  int unreachable = 0;
  for (int round = 0; round < 500; ++round) {
    const size_t nodes = 1 + random() % 7;
    // Half the rounds: the rest may run whole only from a later operator.
    const size_t first_whole = random() % 2 == 0 ? 0 : random() % (nodes + 1);
    const int devices = 2 + static_cast<int>(random() % 3);
    std::vector<int64_t> macs;
    for (size_t p = 0; p < nodes; ++p) macs.push_back(static_cast<int64_t>(random() % 1000));
    std::vector<BandStageEstimate> stages;
    for (size_t begin = 0; begin < nodes; ++begin) {
      for (size_t end = begin + 1; end <= nodes; ++end) {
        if (random() % 3 == 0) continue;
        BandStageEstimate s{static_cast<int>(begin), static_cast<int>(end), {}, static_cast<int64_t>(random() % 4000)};
        const int64_t share =
            static_cast<int64_t>((whole_seconds(macs, begin, {1.0, 0}) - whole_seconds(macs, end, {1.0, 0})) / devices);
        for (int d = 0; d < devices; ++d) s.band_macs.push_back(share + static_cast<int64_t>(random() % 300));
        stages.push_back(s);
      }
    }
    const StageRates rates{1e-5 * static_cast<double>(1 + random() % 10), 1e4 * static_cast<double>(1 + random() % 100)};
    const double fewest = brute_force(macs, stages, 0, rates, first_whole);
    const std::optional<std::vector<size_t>> chosen = choose_band_stages(macs, stages, rates, first_whole);
    if (fewest == std::numeric_limits<double>::infinity()) {
      EXPECT_EQ(chosen, std::nullopt) << "round " << round << ": no sequence reaches " << first_whole;
      ++unreachable;
      continue;
    }
    ASSERT_TRUE(chosen.has_value()) << "round " << round;
    size_t at = 0;
    for (size_t i : *chosen) {
      ASSERT_EQ(static_cast<size_t>(stages[i].begin), at) << "round " << round << ": not consecutive from 0";
      at = static_cast<size_t>(stages[i].end);
    }
    EXPECT_GE(at, first_whole) << "round " << round << ": the rest runs whole before it may";
    split += chosen->empty() ? 0 : 1;
    constrained += first_whole > 0 ? 1 : 0;
    EXPECT_DOUBLE_EQ(sequence_seconds(macs, stages, *chosen, rates), fewest) << "round " << round;
  }
  EXPECT_GT(split, 50) << "the rounds hardly ever split the tail: the test would not see a wrong split";
  EXPECT_GT(constrained, 50) << "the rounds hardly ever require stages: the test would not see a wrong first_whole";
  EXPECT_GT(unreachable, 10) << "no round without a sequence: the test would not see a wrong nullopt";
}

}  // namespace
}  // namespace tinyfit::devices
