// Partial-execution plans (PEX): the lowering keeps the scheduler's peak, the
// verifier accepts it, no MAC is recomputed, loops stay loops, tiles follow
// the budget, and the result is never above the best operator order.
#include "plan/lower_pex.h"

#include <gtest/gtest.h>

#include "analysis/inplace.h"
#include "import/import_model.h"
#include "ir/op_decl.h"
#include "plan/build_plan.h"
#include "plan/lower_pex_schedule.h"
#include "plan/plan_macs.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"

namespace tinyfit::plan {
namespace {

ir::Graph import_or_die(const std::string& model) {
  Result<ir::Graph> graph = import::import_model(model);
  EXPECT_TRUE(graph) << (graph ? "" : graph.error().format());
  return graph ? std::move(*graph) : ir::Graph{};
}

// Zoo nets of every shape the scheduler meets: MobileNet chains with residual
// joins, a float one, and a NAS cell with wide joins.
const std::vector<std::string>& zoo_models() {
  static const std::vector<std::string> kModels = {"zoo:mobilenetv2-96-int8", "zoo:mobilenetv2-96-f32",
                                                   "zoo:mcunet-320kb-imagenet-int8"};
  return kModels;
}

int count_loop_steps(const Plan& plan) {
  int loops = 0;
  for (const Step& step : plan.steps) loops += step.is_loop() ? 1 : 0;
  return loops;
}

TEST(LowerPexSchedule, PlanPeakAtTileOneIsTheSchedulersPeak) {
  for (const std::string& model : zoo_models()) {
    const ir::Graph graph = import_or_die(model);
    const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
    for (int bits : {32, 8}) {
      const partition::PexGraph pg = partition::build_pex_graph(graph, bg, bits);
      const partition::PexSchedule schedule = partition::schedule_pex(pg, {});
      int loops = 0;
      for (const partition::PexInstruction& i : schedule.instructions) loops += i.is_loop ? 1 : 0;
      const Plan plan = lower_pex_schedule(graph, bg, pg, schedule, std::vector<int64_t>(loops, 1), bits);
      EXPECT_EQ(compute_plan_memory(plan).peak_bytes, schedule.peak_bytes) << model << " bits " << bits;
      EXPECT_EQ(count_loop_steps(plan), loops) << model;
      Status valid = verify_plan(graph, plan);
      EXPECT_TRUE(valid) << model << ": " << (valid ? "" : valid.error().message);
      EXPECT_EQ(count_plan_macs(graph, plan), ir::count_graph_macs(graph)) << model;
    }
  }
}

TEST(BuildPexPlan, VerifiesRecomputesNothingAndNeverExceedsTheBestOrder) {
  for (const std::string& model : zoo_models()) {
    const ir::Graph graph = import_or_die(model);
    const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
    const int64_t ordinary = compute_plan_memory(build_operator_plan(graph, bg, analysis::given_order(bg))).peak_bytes;
    for (int bits : {32, 16, 8}) {
      PexOptions options;
      options.accumulator_bits = bits;
      Result<PexResult> pex = build_pex_plan(graph, options);
      ASSERT_TRUE(pex) << pex.error().format();
      Plan& plan = pex->plan;
      EXPECT_LE(compute_plan_memory(plan).peak_bytes, ordinary) << model;
      EXPECT_EQ(count_plan_macs(graph, plan), ir::count_graph_macs(graph)) << model;
      EXPECT_EQ(count_loop_steps(plan), pex->loops) << model;
      EXPECT_NE(std::find(plan.techniques.begin(), plan.techniques.end(), "pex"), plan.techniques.end());
      ASSERT_TRUE(place_plan(plan, "greedy-by-size", {}));
      Status valid = verify_plan(graph, plan);
      EXPECT_TRUE(valid) << model << ": " << (valid ? "" : valid.error().message);
    }
  }
}

TEST(BuildPexPlan, LoopsLowerTheMobileNetPeak) {
  // MobileNetV2-96: its first blocks are PEX Figure 1's pattern; 8-bit
  // accumulators make the Accumulate rule as cheap as the output itself.
  const ir::Graph graph = import_or_die("zoo:mobilenetv2-96-int8");
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const int64_t ordinary = compute_plan_memory(build_operator_plan(graph, bg, analysis::given_order(bg))).peak_bytes;
  PexOptions options;
  options.accumulator_bits = 8;
  Result<PexResult> pex = build_pex_plan(graph, options);
  ASSERT_TRUE(pex) << pex.error().format();
  EXPECT_GT(pex->loops, 0);
  EXPECT_LT(compute_plan_memory(pex->plan).peak_bytes, ordinary);
  EXPECT_TRUE(pex->optimal);
}

TEST(BuildPexPlan, WithoutABudgetTilesKeepTheSmallestPeak) {
  const ir::Graph graph = import_or_die("zoo:mobilenetv2-96-int8");
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const partition::PexGraph pg = partition::build_pex_graph(graph, bg, 8);
  const partition::PexSchedule schedule = partition::schedule_pex(pg, {});
  PexOptions options;
  options.accumulator_bits = 8;
  Result<PexResult> pex = build_pex_plan(graph, options);
  ASSERT_TRUE(pex);
  EXPECT_EQ(compute_plan_memory(pex->plan).peak_bytes, schedule.peak_bytes);
}

// Every tile of every extent up to 70: the aligned tile makes as many
// iterations, is no larger, and is a multiple of four exactly when one that
// is no larger makes as many iterations.
TEST(AlignPexTile, KeepsTheIterationsAndAlignsWheneverItCan) {
  for (int64_t extent = 1; extent <= 70; ++extent) {
    for (int64_t tile = 1; tile <= extent; ++tile) {
      const int64_t aligned = align_pex_tile(tile, extent);
      const auto iterations = [&](int64_t t) { return (extent + t - 1) / t; };
      EXPECT_LE(aligned, tile) << tile << " of " << extent;
      EXPECT_GE(aligned, 1) << tile << " of " << extent;
      EXPECT_EQ(iterations(aligned), iterations(tile)) << tile << " of " << extent;
      bool can_align = false;
      for (int64_t t = 4; t <= tile; t += 4) can_align = can_align || iterations(t) == iterations(tile);
      EXPECT_EQ(aligned % 4 == 0, can_align) << tile << " of " << extent << " -> " << aligned;
    }
  }
  EXPECT_EQ(align_pex_tile(9, 48), 8);   // 6 chunks either way
  EXPECT_EQ(align_pex_tile(1, 16), 1);   // no multiple of four makes 16 chunks
  EXPECT_EQ(align_pex_tile(13, 48), 12); // 4 chunks
}

// MobileNetV2-96-w0.35's 48-channel loop: 9 channels a chunk give the
// smallest peak; chunks of 8 make as many (align_pex_tile) and, placed by
// hill-climb, take an arena no larger (by greedy-by-size they took 73,728
// bytes against 66,872), so the plan runs chunks of 8 at the same peak.
TEST(BuildPexPlan, AlignsATileWhenHillClimbPlacesItNoLarger) {
  const ir::Graph graph = import_or_die("zoo:mobilenetv2-96-w0.35-int8");
  Result<PexResult> pex = build_pex_plan(graph, {});
  ASSERT_TRUE(pex);
  int loops_of_48 = 0;
  for (const Step& step : pex->plan.steps) {
    if (step.is_loop() && step.loop().extent == 48) {
      EXPECT_EQ(step.loop().tile, 8) << step.loop().name;
      ++loops_of_48;
    }
  }
  EXPECT_EQ(loops_of_48, 1);
}

TEST(BuildPexPlan, AGenerousBudgetGivesEveryLoopItsWholeExtent) {
  const ir::Graph graph = import_or_die("zoo:mobilenetv2-96-int8");
  PexOptions options;
  options.accumulator_bits = 8;
  // 64 MB: far above any plan of this net (its ordinary peak is < 1 MB).
  options.sram_bytes = int64_t{64} << 20;
  Result<PexResult> pex = build_pex_plan(graph, options);
  ASSERT_TRUE(pex);
  for (const Step& step : pex->plan.steps) {
    if (step.is_loop()) {
      EXPECT_EQ(step.loop().tile, step.loop().extent) << step.loop().name;
    }
  }
}

TEST(BuildPexPlan, ATightBudgetShrinksTilesButStillFits) {
  const ir::Graph graph = import_or_die("zoo:mobilenetv2-96-int8");
  PexOptions options;
  options.accumulator_bits = 8;
  Result<PexResult> unbudgeted = build_pex_plan(graph, options);
  ASSERT_TRUE(unbudgeted);
  const int64_t smallest = compute_plan_memory(unbudgeted->plan).peak_bytes;
  // 5% above the smallest peak: some loops grow, the plan still fits.
  options.sram_bytes = smallest + smallest / 20;
  Result<PexResult> budgeted = build_pex_plan(graph, options);
  ASSERT_TRUE(budgeted);
  EXPECT_LE(compute_plan_memory(budgeted->plan).peak_bytes, options.sram_bytes);
  int64_t iterations = 0, unit_iterations = 0;
  for (const Step& step : budgeted->plan.steps) {
    if (!step.is_loop()) continue;
    iterations += count_iterations(step.loop());
    unit_iterations += step.loop().extent;
  }
  EXPECT_LT(iterations, unit_iterations);
}

TEST(BuildPexPlan, InPlaceNeverRaisesThePeakAndBeatsOrdinaryInPlace) {
  for (const std::string& model : zoo_models()) {
    const ir::Graph graph = import_or_die(model);
    const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
    const analysis::Order order = analysis::given_order(bg);
    const int64_t ordinary_inplace =
        compute_plan_memory(build_operator_plan(graph, analysis::apply_inplace(bg, order).graph, order)).peak_bytes;
    PexOptions options;
    Result<PexResult> plain = build_pex_plan(graph, options);
    options.inplace = true;
    Result<PexResult> merged = build_pex_plan(graph, options);
    ASSERT_TRUE(plain && merged);
    const int64_t peak = compute_plan_memory(merged->plan).peak_bytes;
    EXPECT_LE(peak, compute_plan_memory(plain->plan).peak_bytes) << model;
    EXPECT_LE(peak, ordinary_inplace) << model;
    Status valid = verify_plan(graph, merged->plan);
    EXPECT_TRUE(valid) << model << ": " << (valid ? "" : valid.error().message);
    EXPECT_EQ(count_plan_macs(graph, merged->plan), ir::count_graph_macs(graph)) << model;
  }
}

TEST(BuildPexPlan, AnExpiredDeadlineStillGivesAVerifiedPlan) {
  const ir::Graph graph = import_or_die("zoo:mobilenetv2-96-int8");
  PexOptions options;
  options.deadline = Deadline(std::chrono::duration<double>(0));
  Result<PexResult> pex = build_pex_plan(graph, options);
  ASSERT_TRUE(pex);
  EXPECT_FALSE(pex->optimal);
  EXPECT_FALSE(pex->note.empty());
  EXPECT_TRUE(verify_plan(graph, pex->plan));
  EXPECT_EQ(count_plan_macs(graph, pex->plan), ir::count_graph_macs(graph));
}

}  // namespace
}  // namespace tinyfit::plan
