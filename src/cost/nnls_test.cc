#include "cost/nnls.h"

#include <gtest/gtest.h>

namespace tinyfit::cost {
namespace {

TEST(SolveNnls, RecoversAnExactNonNegativeSolution) {
  // b = 2 * a0 + 3 * a1 exactly: the unconstrained and constrained optima agree.
  const std::vector<std::vector<double>> a = {{1, 0}, {0, 1}, {1, 1}, {2, 1}};
  const std::vector<double> b = {2, 3, 5, 7};
  const std::vector<double> x = solve_nnls(a, b);
  ASSERT_EQ(x.size(), 2u);
  EXPECT_NEAR(x[0], 2.0, 1e-9);
  EXPECT_NEAR(x[1], 3.0, 1e-9);
}

TEST(SolveNnls, ANegativeLeastSquaresWeightBecomesZero) {
  // Unconstrained: b = 1 * a0 - 1 * a1 fits exactly; with x >= 0 the best is
  // x1 = 0 and x0 = the least-squares fit of b on a0 alone: (a0 . b) / (a0 . a0)
  // = (1*0 + 2*1 + 3*2) / (1 + 4 + 9) = 8 / 14.
  const std::vector<std::vector<double>> a = {{1, 1}, {2, 1}, {3, 1}};
  const std::vector<double> b = {0, 1, 2};
  const std::vector<double> x = solve_nnls(a, b);
  EXPECT_NEAR(x[0], 8.0 / 14.0, 1e-9);
  EXPECT_EQ(x[1], 0.0);
}

TEST(SolveNnls, ColumnsOfVeryDifferentScalesFitAlike) {
  // A per-call constant (1) beside a per-MAC count (1e6 .. 4e6): 30 + 2.5 per MAC.
  std::vector<std::vector<double>> a;
  std::vector<double> b;
  for (double macs : {1e6, 2e6, 3e6, 4e6}) {
    a.push_back({1, macs});
    b.push_back(30 + 2.5 * macs);
  }
  const std::vector<double> x = solve_nnls(a, b);
  EXPECT_NEAR(x[0], 30.0, 1e-3);
  EXPECT_NEAR(x[1], 2.5, 1e-9);
}

TEST(SolveNnls, AnAllZeroColumnGetsZero) {
  const std::vector<double> x = solve_nnls({{1, 0}, {2, 0}}, {3, 6});
  EXPECT_NEAR(x[0], 3.0, 1e-9);
  EXPECT_EQ(x[1], 0.0);
}

}  // namespace
}  // namespace tinyfit::cost
