// Primitive selection against exhaustive enumeration on small random problems
// (every combination of choices evaluated by evaluate_selection), and a hand
// case for layout transformations.
#include "plan/select_primitives.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <random>

namespace tinyfit::plan {
namespace {

// Up to 6 sites of 1-3 choices over 5 positions; integer instruction counts,
// so sums compare exactly; two layouts, so some edges cost a transformation.
SelectionProblem make_random_problem(uint32_t seed) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  SelectionProblem problem;
  const int positions = uniform(1, 5);
  for (int p = 0; p < positions; ++p) problem.live_bytes.push_back(uniform(0, 1000));
  const int sites = uniform(1, 6);
  for (int s = 0; s < sites; ++s) {
    SelectionSite site;
    site.position = uniform(0, positions - 1);
    const int choices = uniform(1, 3);
    for (int c = 0; c < choices; ++c) {
      site.choices.push_back({"k" + std::to_string(c), static_cast<double>(uniform(100, 5000)), uniform(0, 600),
                              uniform(0, 1), uniform(0, 1)});
    }
    problem.sites.push_back(std::move(site));
  }
  for (int s = 1; s < sites; ++s) {
    if (uniform(0, 1)) problem.edges.push_back({uniform(0, s - 1), s, static_cast<double>(uniform(0, 800))});
  }
  return problem;
}

std::vector<Selection> enumerate_all(const SelectionProblem& problem) {
  std::vector<Selection> all;
  std::vector<int> choice(problem.sites.size(), 0);
  while (true) {
    all.push_back(evaluate_selection(problem, choice));
    size_t s = 0;
    while (s < choice.size() && ++choice[s] == static_cast<int>(problem.sites[s].choices.size())) choice[s++] = 0;
    if (s == choice.size()) break;
  }
  return all;
}

constexpr int kProblems = 60;  // ~2 s; every seed passed at 150

TEST(SelectPrimitives, FastestWithinAPeakBudgetEqualsEnumeration) {
  for (uint32_t seed = 1; seed <= kProblems; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const SelectionProblem problem = make_random_problem(seed);
    const std::vector<Selection> all = enumerate_all(problem);
    std::vector<int64_t> budgets;
    for (const Selection& s : all) budgets.push_back(s.peak_bytes);
    budgets.push_back(*std::min_element(budgets.begin(), budgets.end()) - 1);  // infeasible
    for (int64_t budget : budgets) {
      double best = std::numeric_limits<double>::infinity();
      for (const Selection& s : all) {
        if (s.peak_bytes <= budget) best = std::min(best, s.instructions);
      }
      const Selection got = select_fastest_within(problem, budget);
      ASSERT_EQ(got.feasible, best != std::numeric_limits<double>::infinity()) << "budget " << budget;
      if (!got.feasible) continue;
      EXPECT_TRUE(got.proven_optimal);
      EXPECT_EQ(got.instructions, best) << "budget " << budget;
      EXPECT_LE(got.peak_bytes, budget);
    }
  }
}

TEST(SelectPrimitives, SmallestWithinATimeBudgetEqualsEnumeration) {
  for (uint32_t seed = 1; seed <= kProblems; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const SelectionProblem problem = make_random_problem(seed);
    const std::vector<Selection> all = enumerate_all(problem);
    for (const Selection& budget : all) {
      int64_t best = std::numeric_limits<int64_t>::max();
      for (const Selection& s : all) {
        if (s.instructions <= budget.instructions) best = std::min(best, s.peak_bytes);
      }
      const Selection got = select_smallest_within(problem, budget.instructions);
      ASSERT_TRUE(got.feasible);
      EXPECT_EQ(got.peak_bytes, best) << "budget " << budget.instructions;
      EXPECT_LE(got.instructions, budget.instructions);
    }
  }
}

TEST(SelectPrimitives, ParetoFrontierEqualsTheEnumeratedNonDominatedPoints) {
  for (uint32_t seed = 1; seed <= kProblems; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const SelectionProblem problem = make_random_problem(seed);
    // Non-dominated (peak, time) pairs: the least time at each peak, kept when
    // below every smaller peak's time; listed from the fastest.
    std::map<int64_t, double> least_time_at_peak;
    for (const Selection& s : enumerate_all(problem)) {
      auto [it, inserted] = least_time_at_peak.emplace(s.peak_bytes, s.instructions);
      if (!inserted) it->second = std::min(it->second, s.instructions);
    }
    std::vector<std::pair<int64_t, double>> expected;
    double best_time = std::numeric_limits<double>::infinity();
    for (const auto& [peak, time] : least_time_at_peak) {
      if (time < best_time) expected.emplace_back(peak, time);
      best_time = std::min(best_time, time);
    }
    std::reverse(expected.begin(), expected.end());
    std::vector<std::pair<int64_t, double>> got;
    for (const Selection& s : compute_pareto_frontier(problem)) got.emplace_back(s.peak_bytes, s.instructions);
    EXPECT_EQ(got, expected);
  }
}

TEST(SelectPrimitives, AnExpiredDeadlineStillGivesTheFastestPoint) {
  const Deadline expired(std::chrono::duration<double>(0.0));
  ASSERT_TRUE(expired.expired());
  for (uint32_t seed = 1; seed <= kProblems; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const SelectionProblem problem = make_random_problem(seed);
    const std::vector<Selection> whole = compute_pareto_frontier(problem);
    const std::vector<Selection> cut = compute_pareto_frontier(problem, expired);
    ASSERT_EQ(cut.size(), 1u);
    EXPECT_EQ(cut[0].instructions, whole.front().instructions);
    EXPECT_EQ(cut[0].peak_bytes, whole.front().peak_bytes);
  }
}

TEST(SelectPrimitives, ALayoutMismatchCostsItsTransformation) {
  // Two sites in a chain. Site 0: "chw" (output layout 1, 100) or "hwc"
  // (layout 0, 150). Site 1 reads layout 0 only (100). chw + transform (80) =
  // 280 > hwc = 250, so the fastest is hwc, though chw alone is cheaper.
  SelectionProblem problem;
  problem.live_bytes = {0, 0};
  problem.sites.push_back({{{"chw", 100, 0, 0, 1}, {"hwc", 150, 0, 0, 0}}, 0});
  problem.sites.push_back({{{"direct", 100, 0, 0, 0}}, 1});
  problem.edges.push_back({0, 1, 80});
  const Selection got = select_fastest_within(problem, 0);
  ASSERT_TRUE(got.feasible);
  EXPECT_EQ(got.choice, (std::vector<int>{1, 0}));
  EXPECT_EQ(got.instructions, 250);
}

}  // namespace
}  // namespace tinyfit::plan
