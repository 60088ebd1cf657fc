// The work one inference of a plan does, as the latency model counts it: per
// runtime kernel, the call features (call_features.h) summed over every call
// of it, plus the few counts of the generated run function itself. A probe of
// the cost table is one measured PlanWork; a prediction is a PlanWork times
// the table's coefficients. exec/plan_work.h computes it from a Plan.
#pragma once

#include <array>
#include <map>
#include <string>
#include <string_view>

#include "cost/call_features.h"

namespace tinyfit::cost {

// Counts of the generated invoke function itself (zero copy: it copies no
// input or output; codegen/emit_model.h).
enum class RunFeature : int {
  kRuns = 0,        // 1 per inference: the invoke function's prologue and epilogue
  kLoops,           // loop statements entered
  kLoopIterations,  // iterations of them (loop control)
};
inline constexpr int kRunFeatureCount = 3;
using RunFeatureVector = std::array<double, kRunFeatureCount>;

std::string_view run_feature_name(RunFeature feature);  // "runs", "loops", ...
inline double& at(RunFeatureVector& v, RunFeature f) { return v[static_cast<size_t>(f)]; }
inline double at(const RunFeatureVector& v, RunFeature f) { return v[static_cast<size_t>(f)]; }

struct PlanWork {
  RunFeatureVector run{};
  std::map<std::string, FeatureVector, std::less<>> kernels;  // runtime kernel name -> summed features

  void add_call(std::string_view kernel, const FeatureVector& features);
  void add(const PlanWork& other);  // both runs counted
};

}  // namespace tinyfit::cost
