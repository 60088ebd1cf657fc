#include "cost/predict.h"

#include "cost/feature_mask.h"

namespace tinyfit::cost {

double predict_kernel_instructions(std::string_view kernel, const KernelCost& cost, const FeatureVector& features) {
  const FeatureVector used = mask_features(kernel, features);
  double total = 0;
  for (size_t i = 0; i < used.size(); ++i) total += cost.coefficients[i] * used[i];
  return total;
}

std::vector<std::string> find_unmeasured_kernels(const CostTable& table, const PlanWork& work) {
  std::vector<std::string> unmeasured;
  for (const auto& [kernel, features] : work.kernels) {
    if (!table.kernels.contains(kernel)) unmeasured.push_back(kernel);
  }
  return unmeasured;
}

Result<double> predict_instructions(const CostTable& table, const PlanWork& work) {
  if (const std::vector<std::string> unmeasured = find_unmeasured_kernels(table, work); !unmeasured.empty()) {
    std::string names;
    for (const std::string& kernel : unmeasured) names += (names.empty() ? "" : ", ") + kernel;
    return fail("the " + table.target + " cost table has no row for " + names +
                    " (added to runtime/ after the table was measured; tinyfit_bench_cost_tables measures it)",
                ExitCode::kBadCommandLine);
  }
  double instructions = 0;
  for (size_t i = 0; i < work.run.size(); ++i) instructions += table.run_coefficients[i] * work.run[i];
  for (const auto& [kernel, features] : work.kernels) {
    instructions += predict_kernel_instructions(kernel, table.kernels.find(kernel)->second, features);
  }
  return instructions;
}

}  // namespace tinyfit::cost
