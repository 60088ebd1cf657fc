// The host check of emitted C (issue 5): every CI model (tests/mcu/ci_models.h)
// with ordinary, partial-execution, in-place (best order) and segment-overlap
// plans is executed in the checking mode (every read checked against the last
// writer of its bytes), emitted twice (the bytes must be identical: STYLE.md
// rule 6), compiled with the host C compiler under
// -std=c99 -Wall -Wextra -Werror together with a test main that feeds the
// deterministic input, run, and compared byte for byte with the plan executor
// and the reference interpreter. A kernel or technique not built yet skips
// the case and names itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <memory>

#include "ci_models.h"
#include "emitted_build.h"
#include "exec/plan_executor.h"
#include "checked_model.h"

namespace tinyfit::mcu {
namespace {

struct HostCase {
  CiModel model;
  Technique technique;
  std::string name() const { return model.name + "_" + std::string(technique_name(technique)); }
};

std::vector<HostCase> list_host_cases() {
  std::vector<HostCase> cases;
  for (const CiModel& model : list_ci_models()) {
    for (Technique technique : {Technique::kOrdinary, Technique::kPex, Technique::kInplace, Technique::kOverlap}) {
      cases.push_back({model, technique});
    }
    if (model.motes) cases.push_back({model, Technique::kMotes});
  }
  return cases;
}

const Result<CheckedModel>& load_cached(const std::string& model) {
  static std::map<std::string, std::unique_ptr<Result<CheckedModel>>> cache;
  auto& slot = cache[model];
  if (!slot) slot = std::make_unique<Result<CheckedModel>>(load_checked_model(model));
  return *slot;
}

#define TINYFIT_SKIP_IF_NOT_BUILT(result, what)                               \
  if (!(result) && (result).error().code == ExitCode::kBadCommandLine) {     \
    GTEST_SKIP() << what << " not built yet: " << (result).error().format(); \
  }

// Test names, not bytes, in gtest's parameter printout.
void PrintTo(const HostCase& c, std::ostream* out) { *out << c.name(); }

class EmittedCOnHost : public ::testing::TestWithParam<HostCase> {};

TEST_P(EmittedCOnHost, ReproducibleWarningFreeAndEqualToThePlanExecutorAndTheReference) {
  const HostCase& c = GetParam();
  if (!c.model.model.starts_with("zoo:") && !std::filesystem::exists(c.model.model)) {
    GTEST_SKIP() << c.model.model << " is not present (shared models not installed)";
  }
  const Result<CheckedModel>& m = load_cached(c.model.model);
  ASSERT_TRUE(m) << m.error().format();
  Result<plan::Plan> plan = build_technique_plan(m->graph, c.technique);
  TINYFIT_SKIP_IF_NOT_BUILT(plan, technique_name(c.technique));
  ASSERT_TRUE(plan) << plan.error().format();
  exec::ExecuteOptions checking;
  checking.check_overwrites = true;
  Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m->graph, *plan, m->inputs, checking);
  TINYFIT_SKIP_IF_NOT_BUILT(executed, "runtime kernel");
  ASSERT_TRUE(executed) << executed.error().format();

  Result<codegen::EmittedModel> again = codegen::emit_c_model(m->graph, *plan, {});
  TINYFIT_SKIP_IF_NOT_BUILT(again, "emitter");
  ASSERT_TRUE(again) << again.error().format();
  Result<EmittedBuild> build =
      emit_and_build(m->graph, *plan, m->inputs, *executed, Target::kHost, 0, "host/" + c.name());
  ASSERT_TRUE(build) << build.error().format();
  ASSERT_EQ(build->model.files.size(), again->files.size());
  for (size_t i = 0; i < again->files.size(); ++i) {
    EXPECT_EQ(build->model.files[i].text, again->files[i].text) << again->files[i].path << " differs between emissions";
  }

  Result<ProgramReport> report = run_program(Target::kHost, build->executable);
  ASSERT_TRUE(report) << report.error().format();
  ASSERT_EQ(report->outputs.size(), executed->size());
  for (size_t o = 0; o < executed->size(); ++o) {
    EXPECT_EQ(describe_byte_difference(report->outputs[o], (*executed)[o]), "")
        << "output " << o << " vs the plan executor (" << build->executable << ")";
    if ((*executed)[o].dtype != ir::DType::kF32) {
      EXPECT_EQ(describe_byte_difference(report->outputs[o], m->reference[o]), "")
          << "output " << o << " vs the reference interpreter";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CiModels, EmittedCOnHost, ::testing::ValuesIn(list_host_cases()),
                         [](const auto& param_info) { return param_info.param.name(); });

}  // namespace
}  // namespace tinyfit::mcu
