// Primitive selection on a plan: the sites, their two predicted choices, the
// budget the ILP honours, and the chosen plan running bit-exact.
#include "driver/select_workspaces.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "exec/kernel_call.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "ir/verify_graph.h"
#include "plan/build_plan.h"
#include "plan/plan_memory.h"
#include "plan/plan_walk.h"
#include "plan/verify_plan.h"
#include "support/primitive_selection_cases.h"

namespace tinyfit::driver {
namespace {

using exec::selection_test::kDirect;
using exec::selection_test::kIm2col;
using exec::selection_test::make_table;
using exec::selection_test::make_two_convs;

std::set<std::string> list_kernels(const ir::Graph& graph, const plan::Plan& plan) {
  std::set<std::string> names;
  EXPECT_TRUE(plan::walk_calls(plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) -> Status {
    Result<std::unique_ptr<exec::PreparedKernel>> kernel = exec::prepare_kernel({graph, plan, call});
    names.insert(kernel ? std::string((*kernel)->kernel_name()) : kernel.error().format());
    return {};
  }));
  return names;
}

TEST(SelectWorkspaces, EachConvolutionIsASiteWithoutAndWithItsWorkspace) {
  const exec::conv_test::Net net = make_two_convs();
  const plan::Plan plan = exec::selection_test::build_given_plan(net.graph);
  Result<WorkspaceProblem> problem = build_workspace_problem(net.graph, plan, make_table(true));
  ASSERT_TRUE(problem.has_value()) << problem.error().format();
  ASSERT_EQ(problem->problem.sites.size(), 2u);
  EXPECT_EQ(problem->problem.live_bytes, plan::compute_plan_memory(plan).live_bytes);
  // 4 instructions per MAC in bounds and 1 per MAC of the GEMM (the table):
  // 12x12 pixels, 3x3 windows with 34 of 36 taps in bounds along each axis;
  // conv_a 16 outputs of 8 channels, conv_b 4 of 16. The GEMM also runs the
  // border's padding taps.
  const double inbound_taps = 34.0 * 34;
  const double direct[2] = {4.0 * inbound_taps * 16 * 8, 4.0 * inbound_taps * 4 * 16};
  const double gemm[2] = {12.0 * 12 * 16 * 9 * 8, 12.0 * 12 * 4 * 9 * 16};
  for (size_t i = 0; i < 2; ++i) {
    const plan::SelectionSite& site = problem->problem.sites[i];
    ASSERT_EQ(site.choices.size(), 2u);
    EXPECT_EQ(site.choices[0].kernel, kDirect);
    EXPECT_EQ(site.choices[0].workspace_bytes, 0);
    EXPECT_EQ(site.choices[1].kernel, kIm2col);
    EXPECT_GT(site.choices[1].workspace_bytes, 0);
    EXPECT_DOUBLE_EQ(site.choices[0].instructions, direct[i]) << i;
    EXPECT_DOUBLE_EQ(site.choices[1].instructions, gemm[i]) << i;
  }
  EXPECT_EQ(problem->fixed_instructions, 0.0);  // nothing else runs
}

TEST(SelectWorkspaces, UnmeasuredKernelsAreNotChoicesAndAreNamed) {
  const exec::conv_test::Net net = make_two_convs();
  Result<WorkspaceProblem> problem =
      build_workspace_problem(net.graph, exec::selection_test::build_given_plan(net.graph), make_table(false));
  ASSERT_TRUE(problem.has_value()) << problem.error().format();
  EXPECT_TRUE(problem->problem.sites.empty());
  EXPECT_EQ(problem->unmeasured, std::vector<std::string>{kIm2col});
}

TEST(SelectWorkspaces, AnUnboundedBudgetGivesEveryCallItsWorkspaceAndTheResultIsExact) {
  const exec::conv_test::Net net = make_two_convs();
  const plan::Plan plan = exec::selection_test::build_given_plan(net.graph);
  Result<WorkspaceProblem> problem = build_workspace_problem(net.graph, plan, make_table(true));
  ASSERT_TRUE(problem.has_value());
  const plan::Selection selection = plan::select_fastest_within(problem->problem, int64_t{1} << 40);
  ASSERT_TRUE(selection.feasible);
  EXPECT_EQ(selection.choice, (std::vector<int>{1, 1}));
  Result<plan::Plan> selected = apply_workspace_selection(net.graph, plan, *problem, selection);
  ASSERT_TRUE(selected.has_value()) << selected.error().format();
  EXPECT_EQ(plan::compute_plan_memory(*selected).peak_bytes, selection.peak_bytes);
  ASSERT_TRUE(plan::place_plan(*selected, "greedy-by-size", {}).has_value());
  const Status valid = plan::verify_plan(net.graph, *selected);
  ASSERT_TRUE(valid.has_value()) << valid.error().format();
  EXPECT_EQ(list_kernels(net.graph, *selected), std::set<std::string>{kIm2col});
  Result<std::vector<exec::TensorData>> actual = exec::execute_plan(net.graph, *selected, net.inputs);
  ASSERT_TRUE(actual.has_value()) << actual.error().format();
  Result<std::vector<exec::TensorData>> expected = exec::run_reference(net.graph, net.inputs);
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(actual->at(0).bytes, expected->at(0).bytes);
}

TEST(SelectWorkspaces, ABudgetAtThePeakKeepsTheWorkspaceOffThePeakPosition) {
  const exec::conv_test::Net net = make_two_convs();
  const plan::Plan plan = exec::selection_test::build_given_plan(net.graph);
  const plan::PlanMemory memory = plan::compute_plan_memory(plan);
  Result<WorkspaceProblem> problem = build_workspace_problem(net.graph, plan, make_table(true));
  ASSERT_TRUE(problem.has_value());
  const plan::Selection selection = plan::select_fastest_within(problem->problem, memory.peak_bytes);
  ASSERT_TRUE(selection.feasible);
  EXPECT_LE(selection.peak_bytes, memory.peak_bytes);
  for (size_t s = 0; s < selection.choice.size(); ++s) {
    const plan::SelectionSite& site = problem->problem.sites[s];
    const int64_t room = memory.peak_bytes - memory.live_bytes[static_cast<size_t>(site.position)];
    // The fastest selection takes a workspace exactly where it fits (sites do not share positions).
    EXPECT_EQ(selection.choice[s], site.choices[1].workspace_bytes <= room ? 1 : 0) << "site " << s;
  }
  Result<plan::Plan> selected = apply_workspace_selection(net.graph, plan, *problem, selection);
  ASSERT_TRUE(selected.has_value());
  EXPECT_EQ(plan::compute_plan_memory(*selected).peak_bytes, memory.peak_bytes);
}

}  // namespace
}  // namespace tinyfit::driver
