// choose_band_stages against a brute force over every sequence of stages on
// random small tails: the chosen sequence is consecutive from operator 0,
// and its predicted seconds equal the fewest any sequence reaches (the tail
// whole included).
#include "devices/choose_band_stage.h"

#include <gtest/gtest.h>

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

// The fewest seconds of any sequence from operator `from`.
double brute_force(const std::vector<int64_t>& node_macs, const std::vector<BandStageEstimate>& stages, size_t from,
                   const StageRates& rates) {
  double best = whole_seconds(node_macs, from, rates);
  for (const BandStageEstimate& s : stages) {
    if (static_cast<size_t>(s.begin) != from) continue;
    best = std::min(best, estimate_stage_seconds(s, rates) +
                              brute_force(node_macs, stages, static_cast<size_t>(s.end), rates));
  }
  return best;
}

TEST(ChooseBandStages, ASlowLinkKeepsTheTailWhole) {
  const std::vector<int64_t> macs = {500, 500};
  const std::vector<BandStageEstimate> stages = {{0, 1, {250, 260}, 1000}};
  EXPECT_EQ(choose_band_stages(macs, stages, {1e-3, 1e6}), std::vector<size_t>{0});  // 0.26 + 0.001 + 0.5 < 1 s
  EXPECT_TRUE(choose_band_stages(macs, stages, {1e-3, 1.0}).empty());             // the link alone takes 1000 s
}

TEST(ChooseBandStages, TwoShortStagesBeatOneLongOneWhoseHaloGrows) {
  const std::vector<int64_t> macs = {400, 400, 400, 400};
  const std::vector<BandStageEstimate> stages = {
      {0, 3, {700, 700}, 0}, {0, 2, {450, 450}, 0}, {2, 3, {220, 220}, 0}};
  EXPECT_EQ(choose_band_stages(macs, stages, {1e-3, 0}), (std::vector<size_t>{1, 2}));  // 450 + 220 + 400
}

TEST(ChooseBandStages, RandomStagesGiveTheBruteForcesFewestSeconds) {
  std::mt19937 random(14);
  int split = 0;
  for (int round = 0; round < 500; ++round) {
    const size_t nodes = 1 + random() % 7;
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
    const std::vector<size_t> chosen = choose_band_stages(macs, stages, rates);
    size_t at = 0;
    for (size_t i : chosen) {
      ASSERT_EQ(static_cast<size_t>(stages[i].begin), at) << "round " << round << ": not consecutive from 0";
      at = static_cast<size_t>(stages[i].end);
    }
    split += chosen.empty() ? 0 : 1;
    EXPECT_DOUBLE_EQ(sequence_seconds(macs, stages, chosen, rates), brute_force(macs, stages, 0, rates))
        << "round " << round;
  }
  EXPECT_GT(split, 50) << "the rounds hardly ever split the tail: the test would not see a wrong split";
}

}  // namespace
}  // namespace tinyfit::devices
