#include "support/choose_flags_greedily.h"

#include <gtest/gtest.h>

namespace tinyfit {
namespace {

// The cost counts flags that differ from a target; the last flag never moves.
int64_t distance(const std::vector<bool>& flags, const std::vector<bool>& target) {
  int64_t d = 0;
  for (size_t i = 0; i < flags.size(); ++i) d += flags[i] != target[i];
  return d;
}

TEST(ChooseFlagsGreedily, ReachesASeparableTargetAndKeepsTheLastFlag) {
  const std::vector<bool> target = {true, false, true, true, false};
  const Result<FlagChoice> chosen = choose_flags_greedily(
      target.size(), [&](const std::vector<bool>& f) -> Result<int64_t> { return distance(f, target); });
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->flags, target);  // the last flag off, as the all-off start left it
  EXPECT_EQ(chosen->cost, 0);
}

TEST(ChooseFlagsGreedily, TheAllOnStartWinsWhenOnlyItCanReachTheLastFlag) {
  const std::vector<bool> target = {false, true, true};
  const Result<FlagChoice> chosen = choose_flags_greedily(
      target.size(), [&](const std::vector<bool>& f) -> Result<int64_t> { return distance(f, target); });
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->flags, target);
  EXPECT_EQ(chosen->cost, 0);
}

TEST(ChooseFlagsGreedily, AnErrorOfTheCostIsReturned) {
  const Result<FlagChoice> chosen = choose_flags_greedily(3, [](const std::vector<bool>& f) -> Result<int64_t> {
    if (f[0]) return fail("no");
    return 1;
  });
  ASSERT_FALSE(chosen);
  EXPECT_EQ(chosen.error().message, "no");
}

TEST(ChooseFlagsGreedily, NoFlagsCostsTheEmptyChoice) {
  int calls = 0;
  const Result<FlagChoice> chosen = choose_flags_greedily(0, [&](const std::vector<bool>&) -> Result<int64_t> {
    ++calls;
    return 7;
  });
  ASSERT_TRUE(chosen);
  EXPECT_TRUE(chosen->flags.empty());
  EXPECT_EQ(chosen->cost, 7);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace tinyfit
