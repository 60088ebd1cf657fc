// tinyfit_bench_pareto: the memory/latency frontier of issue 13 §4
// (docs/benchmarks/pareto.md). For each model, `tinyfit pareto`'s frontier
// (driver/pareto.h: every compile plan with the frontier of its primitive
// choices), and for every point its emitted C run once on the emulated
// Cortex-M4 (mps2-an386, -icount shift=0): measured instructions beside the
// predicted ones, outputs compared with the reference interpreter.
//
// Exit codes: 0 the table was printed; 2 bad command line; 70 a point whose
// board outputs differ from the reference (a bug to report).
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "checked_model.h"
#include "ci_models.h"
#include "driver/pareto.h"
#include "emitted_build.h"
#include "support/byte_size.h"

namespace tinyfit::bench {
namespace {

using mcu::CheckedModel;

struct Options {
  std::vector<std::string> models;
  bool measure = true;
  double time_limit_seconds = 60.0;
};

std::vector<std::string> list_default_models() {
  std::vector<std::string> models;
  for (const mcu::CiModel& model : mcu::list_ci_models()) models.push_back(model.model);
  models.push_back("zoo:mobilenetv2-224-int8");
  models.push_back(std::string(TINYFIT_MODELS_DIR) + "/tflite/mcunet/mcunet-320kb-1mb_imagenet.tflite");
  return models;
}

std::string format_count(double value) { return format_thousands(static_cast<int64_t>(value + 0.5)); }

// The board's RAM region: the CI board's 320 KiB, or the arena and 64 KiB for
// the stack and the program's other data when the arena is larger.
int64_t board_ram_bytes(int64_t arena_bytes) {
  return std::max<int64_t>(mcu::kCiBoardRamBytes, (arena_bytes + 64 * 1024 + 4095) / 4096 * 4096);
}

// One point on the board: measured instructions, or the reason it was not measured.
struct Measured {
  std::string instructions = "-";
  std::string outputs = "-";
  bool differs = false;
};

Measured measure_point(const CheckedModel& m, const driver::ParetoPoint& point, const std::string& name) {
  Measured measured;
  Result<mcu::EmittedBuild> build = mcu::emit_and_build(m.graph, point.plan_built, m.inputs, m.reference,
                                                        mcu::Target::kCortexM4, board_ram_bytes(point.arena_bytes),
                                                        name);
  if (!build) {
    measured.outputs = "not built: " + build.error().message.substr(0, build.error().message.find('\n'));
    return measured;
  }
  Result<mcu::ProgramReport> report = mcu::run_program(mcu::Target::kCortexM4, build->executable);
  if (!report) {
    measured.outputs = "did not run";
    return measured;
  }
  measured.instructions = format_thousands(static_cast<int64_t>(report->instructions));
  for (size_t o = 0; o < m.reference.size(); ++o) {
    if (!mcu::describe_byte_difference(report->outputs.at(o), m.reference[o]).empty()) measured.differs = true;
  }
  measured.outputs = measured.differs ? "DIFFER" : "equal";
  return measured;
}

int run(int argc, char** argv) {
  CLI::App app{"Memory/latency frontier per model: predicted and measured Cortex-M4 instructions"};
  Options options;
  app.add_option("--model", options.models, "models (files or zoo:NAME); default: the CI models, "
                                            "MobileNetV2-224 int8 and MCUNet-320KB-ImageNet");
  app.add_flag("!--no-measure", options.measure, "predicted instructions only (no QEMU runs)");
  app.add_option("--time-limit", options.time_limit_seconds, "seconds for each model's searches")
      ->check(CLI::PositiveNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (options.models.empty()) options.models = list_default_models();

  Result<const cost::CostTable*> table = cost::find_cost_table("cortex-m4");
  if (!table) {
    std::fprintf(stderr, "%s\n", table.error().format().c_str());
    return 2;
  }
  bool any_differs = false;
  std::printf("Arena against instructions for one inference on the emulated Cortex-M4, from the fastest "
              "point to the smallest (`tinyfit pareto MODEL`); measured = the point's emitted C run once "
              "under QEMU (mps2-an386, -icount shift=0), outputs compared with the reference interpreter.\n");
  for (const std::string& model : options.models) {
    std::fprintf(stderr, "%s ...\n", model.c_str());
    Result<CheckedModel> m = mcu::load_checked_model(model);
    if (!m) {
      std::printf("\n### %s\n\nnot loaded: %s\n", model.c_str(), m.error().format().c_str());
      continue;
    }
    driver::CompileOptions compile_options;
    compile_options.deadline = Deadline(std::chrono::duration<double>(options.time_limit_seconds));
    const auto start = std::chrono::steady_clock::now();
    Result<driver::ParetoReport> report = driver::compute_pareto(m->graph, compile_options, **table);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!report) {
      std::printf("\n### %s\n\nno frontier: %s\n", model.c_str(), report.error().format().c_str());
      continue;
    }
    std::printf("\n### %s\n\n%zu points from %d placed selections of %d plans; selection ILP %.3f s, whole "
                "frontier %.1f s%s.\n\n",
                model.c_str(), report->frontier.size(), report->points_evaluated, report->candidates,
                report->ilp_seconds, seconds,
                report->stopped_by_time_limit ? " (stopped by the time limit: fastest points only)" : "");
    std::printf("| arena | peak | predicted | measured | plan | workspaces | outputs |\n");
    std::printf("|---:|---:|---:|---:|---|---:|---|\n");
    for (size_t i = 0; i < report->frontier.size(); ++i) {
      const driver::ParetoPoint& p = report->frontier[i];
      Measured measured;
      if (options.measure) measured = measure_point(*m, p, "pareto_" + std::to_string(i));
      any_differs = any_differs || measured.differs;
      std::printf("| %s | %s | %s | %s | %s | %d/%d | %s |\n", format_thousands(p.arena_bytes).c_str(),
                  format_thousands(p.peak_bytes).c_str(), format_count(p.predicted_instructions).c_str(),
                  measured.instructions.c_str(), p.plan.c_str(), p.workspaces, p.sites, measured.outputs.c_str());
    }
    if (!report->unmeasured.empty()) {
      std::printf("\nNot offered (the cost table has not measured them):");
      for (const std::string& kernel : report->unmeasured) std::printf(" %s", kernel.c_str());
      std::printf("\n");
    }
    std::fflush(stdout);
  }
  return any_differs ? 70 : 0;
}

}  // namespace
}  // namespace tinyfit::bench

int main(int argc, char** argv) { return tinyfit::bench::run(argc, argv); }
