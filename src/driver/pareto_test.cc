// The frontier of `tinyfit pareto`: ordered, non-dominated, every point a
// valid plan that runs bit-exact, from the fastest to the smallest.
#include "driver/pareto.h"

#include <gtest/gtest.h>

#include "driver/pareto_svg.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "plan/verify_plan.h"
#include "support/primitive_selection_cases.h"

namespace tinyfit::driver {
namespace {

TEST(Pareto, TheFrontierRunsFromTheFastestToTheSmallestAndEveryPointIsExact) {
  const exec::conv_test::Net net = exec::selection_test::make_two_convs();
  CompileOptions options;
  Result<ParetoReport> report = compute_pareto(net.graph, options, exec::selection_test::make_table(true));
  ASSERT_TRUE(report.has_value()) << report.error().format();
  ASSERT_GE(report->frontier.size(), 2u);  // workspaces cost memory here, so speed is traded
  const Result<std::vector<exec::TensorData>> expected = exec::run_reference(net.graph, net.inputs);
  ASSERT_TRUE(expected.has_value());
  for (size_t i = 0; i < report->frontier.size(); ++i) {
    const ParetoPoint& p = report->frontier[i];
    SCOPED_TRACE(p.plan + " with " + std::to_string(p.workspaces) + " workspaces");
    if (i > 0) {
      EXPECT_LT(p.arena_bytes, report->frontier[i - 1].arena_bytes);
      EXPECT_GT(p.predicted_instructions, report->frontier[i - 1].predicted_instructions);
    }
    EXPECT_EQ(p.arena_bytes, p.plan_built.arena_bytes);
    EXPECT_TRUE(plan::verify_plan(net.graph, p.plan_built).has_value());
    const Result<std::vector<exec::TensorData>> actual = exec::execute_plan(net.graph, p.plan_built, net.inputs);
    ASSERT_TRUE(actual.has_value()) << actual.error().format();
    EXPECT_EQ(actual->at(0).bytes, expected->at(0).bytes);
  }
  // The fastest gives both convolutions their workspace; the smallest none.
  EXPECT_EQ(report->frontier.front().workspaces, 2);
  EXPECT_EQ(report->frontier.back().workspaces, 0);
  const std::string svg = render_pareto_svg(*report);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace tinyfit::driver
