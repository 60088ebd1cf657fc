// The flash budget: which convolutions keep widened weights (the most
// predicted instructions saved per byte first, within the budget), the
// emitted const data it adds, and the widened plan running bit-exact; and a
// compile without --flash widening nothing.
#include "driver/widen_weights.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "driver/compile_pipeline.h"
#include "exec/add_kernel_workspaces.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "plan/placement.h"
#include "plan/plan_walk.h"
#include "plan/verify_plan.h"
#include "support/primitive_selection_cases.h"

namespace tinyfit::driver {
namespace {

constexpr const char* kWide = "tf_qs8_conv2d_im2col_wide__dsp";

// Three int8 1x1 convolutions, with the table below (instructions per step of
// the GEMM's dot products: 86 groups of three pixels x 8 channel pairs x 2
// words for a, 22 x 16 x 4 for b, 22 x 4 x 8 for c): a 16x16x8 -> 16 (1,376
// steps: 33,024 instructions saved for 128 bytes), b stride 2 -> 8x8x32
// (1,408: 33,792 for 512 bytes), c -> 8x8x8 (704: 16,896 for 256 bytes).
exec::conv_test::Net make_pointwise_chain() {
  exec::conv_test::Net net;
  exec::conv_test::Layer layer;
  layer.out_channels = 16;
  const ir::TensorId a = net.add_layer("a", net.add_input({1, 16, 16, 8}), layer);
  layer.out_channels = 32;
  layer.stride = 2;
  const ir::TensorId b = net.add_layer("b", a, layer);
  layer.out_channels = 8;
  layer.stride = 1;
  net.set_output(net.add_layer("c", b, layer));
  EXPECT_TRUE(ir::verify_graph(net.graph).has_value());
  return net;
}

// The ordinary plan with every im2col workspace, placed.
plan::Plan build_plan(const ir::Graph& graph) {
  plan::Plan plan = exec::selection_test::build_given_plan(graph);
  EXPECT_EQ(exec::add_kernel_workspaces(graph, plan).value_or(0), 3);
  EXPECT_TRUE(plan::place_plan(plan, "greedy-by-size", {}).has_value());
  return plan;
}

// The int8 im2col kernel at 2 instructions per MAC of its GEMM, its _wide twin at 1.
cost::CostTable make_table(bool with_wide) {
  cost::CostTable table;
  table.target = "test";
  cost::KernelCost narrow, wide;
  cost::at(narrow.coefficients, cost::Feature::kGemmDotSteps) = 2.0 * exec::selection_test::kGemmStepAtOnePerMac;
  cost::at(wide.coefficients, cost::Feature::kGemmDotSteps) = exec::selection_test::kGemmStepAtOnePerMac;
  table.kernels[exec::selection_test::kIm2col] = narrow;
  if (with_wide) table.kernels[kWide] = wide;
  return table;
}

std::set<std::string> list_wide_nodes(const ir::Graph& graph, const plan::Plan& plan) {
  std::set<std::string> names;
  EXPECT_TRUE(plan::walk_calls(plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) -> Status {
    if (call.wide_weights) names.insert(graph.nodes.at(static_cast<size_t>(call.node)).name);
    return {};
  }));
  return names;
}

TEST(WidenWeights, TheMostInstructionsSavedPerByteFirstWithinTheBudget) {
  const exec::conv_test::Net net = make_pointwise_chain();
  const plan::Plan plan = build_plan(net.graph);
  Result<int64_t> before = count_const_data_bytes(net.graph, plan);
  ASSERT_TRUE(before.has_value()) << before.error().format();
  // Room for a (128 B) and c (256 B), not b (512 B): b's ratio ties c's, but b does not fit after a.
  Result<WidenedWeights> w = widen_weights_within(net.graph, plan, make_table(true), *before + 384);
  ASSERT_TRUE(w.has_value()) << w.error().format();
  EXPECT_EQ(w->widenable, 3);
  EXPECT_EQ(w->widened, 2);
  EXPECT_EQ(list_wide_nodes(net.graph, w->plan), (std::set<std::string>{"a", "c"}));
  EXPECT_EQ(w->const_bytes_before, *before);
  EXPECT_EQ(w->const_bytes, *before + 384);  // the layouts' difference, measured on the emitted program
  EXPECT_DOUBLE_EQ(w->saved_instructions, exec::selection_test::kGemmStepAtOnePerMac * (1376 + 704));

  // Room for every node: all three.
  w = widen_weights_within(net.graph, plan, make_table(true), *before + 896);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(list_wide_nodes(net.graph, w->plan), (std::set<std::string>{"a", "b", "c"}));
  EXPECT_EQ(w->const_bytes, *before + 896);

  // The widened plan is the same plan (no buffer moves) and runs bit-exact.
  ASSERT_TRUE(plan::verify_plan(net.graph, w->plan).has_value());
  EXPECT_EQ(w->plan.arena_bytes, plan.arena_bytes);
  Result<std::vector<exec::TensorData>> actual = exec::execute_plan(net.graph, w->plan, net.inputs);
  ASSERT_TRUE(actual.has_value()) << actual.error().format();
  Result<std::vector<exec::TensorData>> expected = exec::run_reference(net.graph, net.inputs);
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(actual->at(0).bytes, expected->at(0).bytes);
}

TEST(WidenWeights, ABudgetWithNoRoomOrAnUnmeasuredKernelWidensNothing) {
  const exec::conv_test::Net net = make_pointwise_chain();
  const plan::Plan plan = build_plan(net.graph);
  const int64_t before = count_const_data_bytes(net.graph, plan).value();
  for (int64_t budget : {before - 1, before, before + 127}) {  // a, the smallest, needs 128 bytes
    Result<WidenedWeights> w = widen_weights_within(net.graph, plan, make_table(true), budget);
    ASSERT_TRUE(w.has_value());
    EXPECT_EQ(w->widened, 0) << budget;
    EXPECT_EQ(w->const_bytes, before);
    EXPECT_TRUE(list_wide_nodes(net.graph, w->plan).empty());
  }
  Result<WidenedWeights> w = widen_weights_within(net.graph, plan, make_table(false), before + 896);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->widened, 0);
  EXPECT_EQ(w->unmeasured, std::vector<std::string>{kWide});
}

// tinyfit compile: without --flash no weights are widened (the program's
// flash is the model's own); with a budget the compile widens within it,
// and a budget below the program's own const data does not fit (exit 3).
TEST(WidenWeights, CompileWidensOnlyUnderAFlashBudget) {
  const exec::conv_test::Net net = make_pointwise_chain();
  CompileOptions options;
  options.techniques = {false, false, false, false, false};
  options.sram_bytes = int64_t{1} << 20;  // room for the im2col workspaces
  Result<CompileReport> plain = compile_model(net.graph, options);
  ASSERT_TRUE(plain.has_value()) << plain.error().format();
  EXPECT_TRUE(list_wide_nodes(net.graph, plain->result().plan).empty());
  EXPECT_FALSE(plain->const_data_bytes.has_value());

  options.flash_bytes = int64_t{4} << 20;
  Result<CompileReport> budgeted = compile_model(net.graph, options);
  ASSERT_TRUE(budgeted.has_value()) << budgeted.error().format();
  ASSERT_TRUE(budgeted->const_data_bytes.has_value());
  EXPECT_LE(*budgeted->const_data_bytes, *options.flash_bytes);
  EXPECT_TRUE(budgeted->verification.verified) << budgeted->verification.note;
  // The Cortex-M4 table prices the _wide kernels: the chain's convolutions are widened.
  EXPECT_FALSE(list_wide_nodes(net.graph, budgeted->result().plan).empty()) << budgeted->flash_note;

  options.flash_bytes = 100;
  Result<CompileReport> over = compile_model(net.graph, options);
  ASSERT_FALSE(over.has_value());
  EXPECT_EQ(over.error().code, ExitCode::kDoesNotFit);
}

}  // namespace
}  // namespace tinyfit::driver
