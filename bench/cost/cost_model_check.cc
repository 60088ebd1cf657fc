// tinyfit_bench_cost_model: how well the latency model predicts
// (docs/benchmarks/cost_model.md; issue 11 section 6). One run, two tables,
// both on one target (default the emulated Cortex-M4):
//  1. per model and plan (ordinary, partial execution, in place): the
//     instructions the shipped table (src/cost/tables, built into tinyfit)
//     predicts for one inference, before anything is built, beside the
//     retired instructions of the plan's emitted C on the board (SysTick
//     under -icount shift=0), the outputs checked against the plan executor;
//  2. per kernel family: probe programs (cost_probes.h) drawn from seeds the
//     tables were never fitted on, measured the same way, each probe counted
//     under the kernel that makes most of its predicted instructions.
// Models: the CI models (tests/mcu/ci_models.h) and issue 13's larger ones.
//
//   cmake --build build --target tinyfit_bench_cost_model
//   ./build/bench/tinyfit_bench_cost_model > docs/benchmarks/cost_model.md
//
// Exit codes: 0 tables printed; 2 bad command line or a missing tool. A row
// that cannot be measured (a technique or kernel not built yet, a kernel the
// table lacks) says why in its place.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include <CLI/CLI.hpp>

#include "checked_model.h"
#include "ci_models.h"
#include "cost/predict.h"
#include "cost_probes.h"
#include "emitted_build.h"
#include "exec/plan_executor.h"
#include "exec/plan_work.h"
#include "probe_firmware.h"
#include "support/byte_size.h"

namespace tinyfit::bench {
namespace {

using mcu::Target;
using mcu::Technique;

// Probe seeds from here on were never used to fit a table (cost_tables.cc
// takes at most --seeds 50 from seed 0).
constexpr int kHeldOutFirstSeed = 1000;

// Issue 13's models beyond the CI list: MobileNetV2 and MCUNet at ImageNet size.
std::vector<mcu::CiModel> list_models() {
  std::vector<mcu::CiModel> models = mcu::list_ci_models();
  const std::string shared = std::string(TINYFIT_MODELS_DIR) + "/tflite/";
  models.push_back({"person_detect", shared + "tflite_micro/person_detect_int8.tflite"});
  models.push_back({"mbv2-w0.35-r144", shared + "mcunet/mbv2-w0.35-r144_imagenet.tflite"});
  models.push_back({"mcunet-320kb", shared + "mcunet/mcunet-320kb-1mb_imagenet.tflite"});
  return models;
}

std::string format_error(double predicted, double measured) {
  std::ostringstream out;
  out << std::showpos << std::fixed << std::setprecision(1) << 100.0 * (predicted - measured) / measured << "%";
  return out.str();
}

std::string format_count(double value) { return format_thousands(std::llround(value)); }

// --- Models -------------------------------------------------------------------

// The predicted and the measured instructions of one plan, or why not.
struct ModelRow {
  std::string model, plan;
  double predicted = 0, measured = 0;
  std::string problem;
};

Result<double> predict_plan(const ir::Graph& graph, const plan::Plan& plan, const cost::CostTable& table) {
  TINYFIT_ASSIGN_OR_RETURN(const cost::PlanWork work, exec::count_plan_work(graph, plan));
  return cost::predict_instructions(table, work);
}

ModelRow measure_model_plan(const mcu::CiModel& model, const mcu::CheckedModel& m, Technique technique,
                            Target target, const cost::CostTable& table) {
  ModelRow row{model.name, std::string(mcu::technique_name(technique)), 0, 0, ""};
  auto unmeasured = [&row](const Diag& diag) {
    row.problem = diag.message.substr(0, diag.message.find('\n'));
    return row;
  };
  const Result<plan::Plan> plan = mcu::build_technique_plan(m.graph, technique);
  if (!plan) return unmeasured(plan.error());
  const Result<double> predicted = predict_plan(m.graph, *plan, table);
  if (!predicted) return unmeasured(predicted.error());
  row.predicted = *predicted;
  const Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m.graph, *plan, m.inputs);
  if (!executed) return unmeasured(executed.error());
  // The board's whole SRAM: the budget is not what this bench measures.
  constexpr int64_t kBoardRamBytes = 4 << 20;
  const Result<mcu::EmittedBuild> build = mcu::emit_and_build(m.graph, *plan, m.inputs, *executed, target,
                                                              kBoardRamBytes, "cost_model/" + model.name + "_" + row.plan);
  if (!build) return unmeasured(build.error());
  const Result<mcu::ProgramReport> report = mcu::run_program(target, build->executable);
  if (!report) return unmeasured(report.error());
  for (size_t o = 0; o < executed->size(); ++o) {
    if (std::string difference = mcu::describe_byte_difference(report->outputs.at(o), (*executed)[o]);
        !difference.empty()) {
      row.problem = "output " + std::to_string(o) + " differs from the plan executor: " + difference;
      return row;
    }
  }
  row.measured = static_cast<double>(report->instructions);
  return row;
}

void print_model_table(const std::vector<ModelRow>& rows, const std::string& target) {
  std::cout << "| model | plan | predicted (" << target << ") | measured | error |\n|---|---|---:|---:|---:|\n";
  double worst = 0;
  for (const ModelRow& row : rows) {
    std::cout << "| " << row.model << " | " << row.plan << " | ";
    if (!row.problem.empty()) {
      std::cout << "not measured: " << row.problem << " | | |\n";
      continue;
    }
    worst = std::max(worst, std::abs(row.predicted - row.measured) / row.measured);
    std::cout << format_count(row.predicted) << " | " << format_count(row.measured) << " | "
              << format_error(row.predicted, row.measured) << " |\n";
  }
  std::cout << "\nLargest error over the measured rows: " << std::fixed << std::setprecision(1) << 100 * worst
            << "%.\n";
}

// --- Kernel families ------------------------------------------------------------

// "tf_qs8_conv2d_direct_rows" -> "conv2d_direct_rows": the family, every dtype.
// A probe whose plan calls no kernel (its operators are all aliases, such as a
// Reshape) has no family: the model predicts nothing for it.
std::string kernel_family(std::string_view kernel) {
  if (kernel.empty()) return "(no kernel call)";
  for (std::string_view prefix : {"tf_qs8_", "tf_qu8_", "tf_f32_", "tf_x8_", "tf_"}) {
    if (kernel.starts_with(prefix)) return std::string(kernel.substr(prefix.size()));
  }
  return std::string(kernel);
}

// The kernel that makes most of the probe's predicted instructions.
std::string find_dominant_kernel(const cost::CostTable& table, const cost::PlanWork& work) {
  std::string dominant;
  double most = -1;
  for (const auto& [kernel, features] : work.kernels) {
    const double predicted = cost::predict_kernel_instructions(kernel, table.kernels.find(kernel)->second, features);
    if (predicted > most) {
      most = predicted;
      dominant = kernel;
    }
  }
  return dominant;
}

struct FamilyErrors {
  int probes = 0;
  double sum_squared = 0, worst = 0, predicted = 0, measured = 0;
};

void print_family_table(const std::vector<ProbeProgram>& programs, const std::vector<double>& measured,
                        const cost::CostTable& table) {
  std::map<std::string, FamilyErrors> families;
  std::vector<std::string> unpredicted;
  for (size_t i = 0; i < programs.size(); ++i) {
    if (measured[i] <= 0) continue;
    const Result<double> predicted = cost::predict_instructions(table, programs[i].work);
    if (!predicted) {
      unpredicted.push_back(programs[i].name + ": " + predicted.error().message);
      continue;
    }
    const double error = (*predicted - measured[i]) / measured[i];
    FamilyErrors& f = families[kernel_family(find_dominant_kernel(table, programs[i].work))];
    f.probes += 1;
    f.sum_squared += error * error;
    f.worst = std::max(f.worst, std::abs(error));
    f.predicted += *predicted;
    f.measured += measured[i];
  }
  std::cout << "| kernel family | probes | rms error | max error | sum predicted / sum measured |\n"
            << "|---|---:|---:|---:|---:|\n";
  for (const auto& [family, f] : families) {
    std::cout << "| " << family << " | " << f.probes << " | " << std::fixed << std::setprecision(1)
              << 100 * std::sqrt(f.sum_squared / f.probes) << "% | " << 100 * f.worst << "% | " << std::setprecision(3)
              << f.predicted / f.measured << " |\n";
  }
  std::cout << "\nProbes not predicted: " << unpredicted.size() << "\n";
  for (const std::string& line : unpredicted) std::cout << "- " << line << "\n";
}

int run(int argc, char** argv) {
  CLI::App app{"tinyfit_bench_cost_model: the latency model's prediction error, per model and per kernel family"};
  std::string target_name = "cortex-m4";
  std::string only;
  int probe_seeds = 1;
  int jobs = 2;
  bool skip_probes = false;
  app.add_option("--target", target_name, "cortex-m4 or cortex-m7")
      ->check(CLI::IsMember({"cortex-m4", "cortex-m7"}))
      ->capture_default_str();
  app.add_option("--only", only, "measure only the models whose name contains this");
  app.add_option("--probe-seeds", probe_seeds, "held-out probe programs per maker, in units of its base count")
      ->check(CLI::Range(1, 20))
      ->capture_default_str();
  app.add_option("--jobs", jobs, "probe images built and run at once")->check(CLI::Range(1, 16))->capture_default_str();
  app.add_flag("--models-only", skip_probes, "skip the kernel-family table");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  const Target target = target_name == "cortex-m4" ? Target::kCortexM4 : Target::kCortexM7;
  if (std::string missing = mcu::find_missing_tools(target); !missing.empty()) {
    std::cerr << "tinyfit_bench_cost_model: error: " << missing << " is not installed\n";
    return 2;
  }
  const Result<const cost::CostTable*> table = cost::find_cost_table(target_name);
  if (!table) {
    std::cerr << table.error().format() << "\n";
    return 2;
  }

  std::cout << "# The latency model's prediction error (" << target_name << ")\n\n"
            << "Table: " << (*table)->generated << ".\n\n## Per model and plan\n\n";
  std::vector<ModelRow> rows;
  for (const mcu::CiModel& model : list_models()) {
    if (!only.empty() && model.name.find(only) == std::string::npos) continue;
    if (!model.model.starts_with("zoo:") && !std::filesystem::exists(model.model)) {
      rows.push_back({model.name, "-", 0, 0, model.model + " is not present"});
      continue;
    }
    std::cerr << model.name << "\n";
    const Result<mcu::CheckedModel> m = mcu::load_checked_model(model.model);
    if (!m) {
      rows.push_back({model.name, "-", 0, 0, m.error().message});
      continue;
    }
    for (Technique technique : {Technique::kOrdinary, Technique::kPex, Technique::kInplace}) {
      rows.push_back(measure_model_plan(model, *m, technique, target, **table));
    }
  }
  print_model_table(rows, target_name);
  if (skip_probes) return 0;

  std::vector<std::string> skipped;
  const std::vector<ProbeProgram> programs = make_probe_programs(kHeldOutFirstSeed, probe_seeds, skipped);
  std::cerr << programs.size() << " held-out probe programs\n";
  const std::string work_dir = std::string(TINYFIT_BINARY_DIR) + "/bench/cost_model_probes/" + target_name;
  std::filesystem::create_directories(work_dir);
  const ProbeMeasurements measured = measure_probe_programs(programs, target, work_dir, jobs);
  std::cout << "\n## Per kernel family (held-out probes)\n\n";
  print_family_table(programs, measured.instructions, **table);
  for (const std::string& problem : measured.problems) std::cout << "- not measured: " << problem << "\n";
  return 0;
}

}  // namespace
}  // namespace tinyfit::bench

int main(int argc, char** argv) { return tinyfit::bench::run(argc, argv); }
