#include "cost/plan_work.h"

namespace tinyfit::cost {

std::string_view run_feature_name(RunFeature feature) {
  switch (feature) {
    case RunFeature::kRuns: return "runs";
    case RunFeature::kLoops: return "loops";
    case RunFeature::kLoopIterations: return "loop_iterations";
  }
  return "?";
}

void PlanWork::add_call(std::string_view kernel, const FeatureVector& features) {
  auto found = kernels.find(kernel);
  if (found == kernels.end()) found = kernels.emplace(std::string(kernel), FeatureVector{}).first;
  for (size_t i = 0; i < features.size(); ++i) found->second[i] += features[i];
}

void PlanWork::add(const PlanWork& other) {
  for (size_t i = 0; i < run.size(); ++i) run[i] += other.run[i];
  for (const auto& [kernel, features] : other.kernels) add_call(kernel, features);
}

}  // namespace tinyfit::cost
