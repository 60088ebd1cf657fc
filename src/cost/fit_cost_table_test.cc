#include "cost/fit_cost_table.h"

#include <gtest/gtest.h>

#include "cost/predict.h"

namespace tinyfit::cost {
namespace {

FeatureVector make_features(double calls, double elements, double macs) {
  FeatureVector f{};
  at(f, Feature::kCalls) = calls;
  at(f, Feature::kElements) = elements;
  at(f, Feature::kInboundWork) = macs;
  return f;
}

// Probes made from known coefficients: a run costs 20 + 6 per loop iteration; kernel
// "conv" 100 per call + 25 per element + 3 per MAC; kernel "clamp" 40 per call +
// 2 per element. Some probes call both kernels, as a Concat with a clamp does.
CostTable make_synthetic_table() {
  auto instructions = [](const PlanWork& w) {
    double total = 20 * at(w.run, RunFeature::kRuns) + 6 * at(w.run, RunFeature::kLoopIterations);
    for (const auto& [kernel, f] : w.kernels) {
      total += kernel == "conv" ? 100 * at(f, Feature::kCalls) + 25 * at(f, Feature::kElements) +
                                      3 * at(f, Feature::kInboundWork)
                                : 40 * at(f, Feature::kCalls) + 2 * at(f, Feature::kElements);
    }
    return total;
  };
  CostTable table;
  for (int i = 1; i <= 12; ++i) {
    PlanWork w;
    at(w.run, RunFeature::kRuns) = 1;
    at(w.run, RunFeature::kLoopIterations) = i % 5 == 0 ? 0 : 3.0 * i;
    if (i % 3 != 0) w.add_call("conv", make_features(1, 16.0 * i, 16.0 * i * (i % 4 + 1) * 9));
    if (i % 2 == 0) w.add_call("clamp", make_features(i % 4 == 0 ? 2 : 1, 10.0 * i + 7, 0));
    table.probes.push_back({"probe" + std::to_string(i), w, instructions(w)});
  }
  return table;
}

TEST(FitCostTable, ReproducesProbesMadeFromKnownCoefficients) {
  CostTable table = make_synthetic_table();
  fit_cost_table(table);
  ASSERT_TRUE(table.kernels.contains("conv"));
  ASSERT_TRUE(table.kernels.contains("clamp"));
  for (const Probe& probe : table.probes) {
    EXPECT_NEAR(predict_instructions(table, probe.work).value(), probe.instructions, 1e-3 * probe.instructions)
        << probe.name;
  }
  EXPECT_LT(table.kernels.at("conv").max_error, 1e-3);
  EXPECT_EQ(table.kernels.at("conv").probes, 8);   // i = 1..12 without multiples of 3
  EXPECT_EQ(table.kernels.at("clamp").probes, 6);  // the even i
}

TEST(FitCostTable, RefittingOneRowKeepsEveryOtherCoefficientAndFindsItsOwn) {
  CostTable table = make_synthetic_table();
  fit_cost_table(table);
  const CostTable fitted = table;
  table.kernels.at("clamp").coefficients = {};  // as if "clamp" had changed since
  refit_kernel_rows(table, {"clamp"});
  EXPECT_EQ(table.run_coefficients, fitted.run_coefficients);
  EXPECT_EQ(table.kernels.at("conv").coefficients, fitted.kernels.at("conv").coefficients);
  EXPECT_EQ(table.kernels.at("clamp").probes, 6);
  EXPECT_LT(table.kernels.at("clamp").max_error, 1e-3);
  for (const Probe& probe : table.probes) {
    EXPECT_NEAR(predict_instructions(table, probe.work).value(), probe.instructions, 1e-3 * probe.instructions)
        << probe.name;
  }
}

TEST(FitCostTable, NoCoefficientIsNegative) {
  CostTable table = make_synthetic_table();
  fit_cost_table(table);
  for (double c : table.run_coefficients) EXPECT_GE(c, 0.0);
  for (const auto& [kernel, cost] : table.kernels) {
    for (double c : cost.coefficients) EXPECT_GE(c, 0.0) << kernel;
  }
}

TEST(PredictInstructions, AKernelTheTableLacksGivesNoFigureButAnErrorNamingIt) {
  CostTable table = make_synthetic_table();
  table.target = "test";
  fit_cost_table(table);
  PlanWork w;
  at(w.run, RunFeature::kRuns) = 1;
  w.add_call("conv", make_features(1, 100, 1000));
  w.add_call("tf_new_kernel", make_features(1, 100, 1000));
  EXPECT_EQ(find_unmeasured_kernels(table, w), std::vector<std::string>{"tf_new_kernel"});
  const Result<double> predicted = predict_instructions(table, w);
  ASSERT_FALSE(predicted);
  EXPECT_NE(predicted.error().message.find("the test cost table has no row for tf_new_kernel"), std::string::npos)
      << predicted.error().message;
}

TEST(FitCostTable, AKernelsProbesAreAllReplacedByTheFreshOnesBeforeItsRefit) {
  CostTable table = make_synthetic_table();  // "clamp" in probe2, 4, 6, 8, 10, 12
  PlanWork w;
  at(w.run, RunFeature::kRuns) = 1;
  w.add_call("clamp", make_features(1, 50, 0));
  replace_kernel_probes(table, {"clamp"}, {{"probe4", w, 500}, {"probe99", w, 510}});
  std::vector<std::string> names;
  for (const Probe& probe : table.probes) names.push_back(probe.name);
  // probe2, 6, 8, 10 and 12 were not measured again: gone; probe4 replaced; probe99 added.
  EXPECT_EQ(names, (std::vector<std::string>{"probe1", "probe3", "probe5", "probe7", "probe9", "probe11", "probe4",
                                             "probe99"}));
  EXPECT_EQ(table.probes[6].instructions, 500);
  EXPECT_EQ(table.probes[7].instructions, 510);
}

TEST(CostTable, FormatThenParseGivesTheSameTable) {
  CostTable table = make_synthetic_table();
  table.target = "test";
  table.description = "synthetic";
  table.generated = "by hand";
  table.unmeasured = {"tf_x8_copy"};
  fit_cost_table(table);
  table.kernels.begin()->second.refitted = "by hand, later";
  const Result<CostTable> parsed = parse_cost_table(format_cost_table(table), "test.json");
  ASSERT_TRUE(parsed) << parsed.error().format();
  EXPECT_EQ(parsed->target, "test");
  EXPECT_EQ(parsed->unmeasured, table.unmeasured);
  ASSERT_EQ(parsed->probes.size(), table.probes.size());
  EXPECT_EQ(parsed->probes[3].work.kernels, table.probes[3].work.kernels);
  for (const auto& [kernel, cost] : table.kernels) {
    EXPECT_EQ(parsed->kernels.at(kernel).coefficients, cost.coefficients);
    EXPECT_EQ(parsed->kernels.at(kernel).refitted, cost.refitted);
  }
}

TEST(CostTable, ATableWithOtherFeaturesIsRejectedWithItsName) {
  const Result<CostTable> parsed = parse_cost_table(R"({"call_features": ["calls"], "run_features": []})", "old.json");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("old.json"), std::string::npos);
  EXPECT_NE(parsed.error().message.find("regenerate"), std::string::npos);
}

TEST(CostTable, EveryShippedTargetParsesAndAnUnknownOneIsACommandLineError) {
  for (std::string_view target : {"cortex-m4", "cortex-m7", "host"}) {
    const Result<const CostTable*> table = find_cost_table(target);
    ASSERT_TRUE(table) << table.error().format();
    EXPECT_EQ((*table)->target, target);
    EXPECT_FALSE((*table)->kernels.empty());
  }
  const Result<const CostTable*> unknown = find_cost_table("cortex-m0");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ExitCode::kBadCommandLine);
}

}  // namespace
}  // namespace tinyfit::cost
