// How compile's report reads: the JSON carries DESIGN.md's fields plus
// compile's own, and candidate statuses say why each plan was or was not kept.
// The figures are made up; only where they land is checked.
#include "compile_output.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tinyfit::tools {
namespace {

driver::CompileCandidate make_candidate(std::string name, int64_t arena_bytes, bool built = true) {
  driver::CompileCandidate c;
  c.name = std::move(name);
  c.built = built;
  c.peak_bytes = arena_bytes;
  c.arena_bytes = arena_bytes;
  c.macs = 1000;
  c.kernel_calls = 10;
  return c;
}

driver::CompileReport make_report() {
  driver::CompileReport r;
  r.model = "zoo:test";
  r.sram_bytes = 4000;
  r.candidates = {make_candidate("ordinary", 5000), make_candidate("order:best", 3500),
                  make_candidate("pex", 0, false)};
  r.candidates[1].techniques = {"order:best"};
  r.chosen = 1;
  r.reported = 1;
  r.schedule = {"a", "b"};
  return r;
}

TEST(CompileOutput, StatusSaysChosenOverBudgetOrNotBuiltYet) {
  const driver::CompileReport r = make_report();
  EXPECT_EQ(describe_candidate_status(r, 0), "over budget");
  EXPECT_EQ(describe_candidate_status(r, 1), "chosen");
  EXPECT_EQ(describe_candidate_status(r, 2), "not built yet");
}

TEST(CompileOutput, WithoutSramASmallerPlanOverTheLatencyBudgetIsSlower) {
  driver::CompileReport r = make_report();
  r.sram_bytes.reset();
  r.latency_budget = 1.05;
  r.candidates[0].predicted_instructions = 1000;
  r.candidates[1].predicted_instructions = 1040;
  r.candidates.push_back(make_candidate("pex+inplace", 2000));
  r.candidates[3].predicted_instructions = 1200;
  EXPECT_EQ(describe_candidate_status(r, 0), "larger");
  EXPECT_EQ(describe_candidate_status(r, 1), "chosen");
  EXPECT_EQ(describe_candidate_status(r, 3), "slower");
  EXPECT_EQ(make_compile_json(r, "")["latency_budget"], 1.05);
}

TEST(CompileOutput, JsonHasTheDesignFieldsAndCompilesOwn) {
  const nlohmann::json j = make_compile_json(make_report(), "");
  for (const char* field : {"peak_bytes", "arena_bytes", "flash_bytes", "macs", "techniques", "bottleneck", "verified",
                            "schedule", "ordinary_peak_bytes", "candidates", "macs_ratio", "max_abs_error",
                            "compile_seconds", "loops", "accumulator_bits"}) {
    EXPECT_TRUE(j.contains(field)) << field;
  }
  EXPECT_EQ(j["arena_bytes"], 3500);
  EXPECT_EQ(j["ordinary_peak_bytes"], 5000);
  EXPECT_EQ(j["techniques"], nlohmann::json({"order:best"}));
  EXPECT_FALSE(j["verified"]);
  EXPECT_TRUE(j["max_abs_error"].is_null());  // never executed
  // A candidate not built yet has a status and no figures.
  EXPECT_EQ(j["candidates"][2]["status"], "not built yet");
  EXPECT_FALSE(j["candidates"][2].contains("arena_bytes"));
}

TEST(CompileOutput, TextEndsWithWhereTheCAndTheChartWent) {
  driver::CompileReport r = make_report();
  r.emitted_dir = "gen";
  r.emitted_prefix = "tinyfit_test";
  r.emitted_files = {"model.h", "model.c", "README.md", "CMakeLists.txt", "runtime/include/tinyfit/runtime.h",
                     "runtime/kernels/x8_copy.c"};
  std::ostringstream out;
  print_compile_text(out, r, "mem.svg");
  const std::string text = out.str();
  const size_t c_code = text.find("C code written to gen:\n");
  ASSERT_NE(c_code, std::string::npos) << text;
  EXPECT_GT(c_code, text.find("compile_seconds: ")) << "the files come last";
  EXPECT_NE(text.find("tinyfit_test_input(i), tinyfit_test_invoke(), tinyfit_test_output(i)"), std::string::npos);
  EXPECT_NE(text.find("the arena (3,500 bytes"), std::string::npos) << "the chosen candidate's arena";
  EXPECT_NE(text.find("CMakeLists.txt  static library tinyfit_test for add_subdirectory"), std::string::npos);
  EXPECT_NE(text.find("runtime/        2 files"), std::string::npos);
  EXPECT_TRUE(text.ends_with("chart written to mem.svg: live memory per plan step, ordinary and order:best\n"))
      << text;
}

TEST(CompileOutput, ChartIsTitledByTheFileNameWithTheFullPathAsTooltip) {
  driver::CompileReport r = make_report();
  r.model = "/very/long/directory/of/models/kws_ref_model_int8.tflite";
  r.candidates[0].memory.live_bytes = {1, 2};
  r.candidates[1].memory.live_bytes = {1, 2};
  const driver::TimelineChart chart = make_compile_timeline(ir::Graph{}, r);
  EXPECT_EQ(chart.title, "kws_ref_model_int8.tflite: live memory per plan step");
  EXPECT_EQ(chart.tooltip, r.model);
}

}  // namespace
}  // namespace tinyfit::tools
