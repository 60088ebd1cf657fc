// How compile's report reads: the JSON carries DESIGN.md's fields plus
// compile's own, and candidate statuses say why each plan was or was not kept.
// The figures are made up; only where they land is checked.
#include "compile_output.h"

#include <gtest/gtest.h>

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

TEST(CompileOutput, JsonHasTheDesignFieldsAndCompilesOwn) {
  const nlohmann::json j = make_compile_json(make_report());
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

}  // namespace
}  // namespace tinyfit::tools
