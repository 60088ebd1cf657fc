// tinyfit_bench_motes: issue 11's MOTES figures (docs/benchmarks/motes.md).
// For every model of the issue and every latency budget δ, one
// `tinyfit compile` (every technique, verified by execution in an arena of
// exactly its size against the reference interpreter) gives the ordinary
// peak, the best plan without motes, the motes plan's peak and arena, its
// MACs over ordinary, its kernel calls, whether it was verified and the
// compile time. With --m4 the motes plan and the ordinary plan are emitted as
// C, built for the Cortex-M4F board (mps2-an386) and run under QEMU (SysTick
// under -icount shift=0): their retired instructions of one invoke, in one
// run, give the measured latency ratio (outputs checked against the plan
// executor first). Every row also gives the motes plan's predicted
// instructions over the ordinary plan's (the latency model, cost/), the ratio
// the latency budget bounds.
//
// --models curve: the memory/latency curve (MOTES Fig. 9(b)/10,
// docs/benchmarks/motes_delta.md): the CI models (tests/mcu/ci_models.h),
// MobileNetV2-224, MCUNet-320KB and MCUNetV2-SE-L at delta 1.0 .. 1.10.
//
//   tinyfit_bench_motes [--model MODEL ...] [--models issue|curve] [--budgets none,1.05,...] [--m4]
//                       [--time-limit S]
//
// A row that cannot be measured says why in its place (a budget without the
// latency model, a kernel not built). Exit codes: 0 table printed; 2 bad
// command line or missing cross tools with --m4.
#include <charconv>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "checked_model.h"
#include "ci_models.h"
#include "driver/compile_pipeline.h"
#include "driver/compile_verify.h"
#include "emitted_build.h"
#include "exec/plan_executor.h"
#include "partition/motes_search.h"
#include "plan/print_plan.h"
#include "support/byte_size.h"
#include "toolchain.h"

namespace tinyfit::mcu {
namespace {

// The issue's models (issue 11, "Figures to reach"), in its order.
const std::vector<std::string> kIssueModels = {
    TINYFIT_MODELS_DIR "/tflite/mcunet/mcunetv2_se_large_224.tflite",
    "zoo:mobilenetv2-224-int8",
    "zoo:mcunet-320kb-imagenet-int8",
    "zoo:nasnet-a-imagenet-int8",
    "zoo:darts-imagenet-int8",
    "zoo:amoebanet-imagenet-int8",
    "zoo:nasnet-a-cifar-int8",
    "zoo:darts-cifar-int8",
    "zoo:amoebanet-cifar-int8",
    "zoo:bert-tiny-512-int8",
};

// The curve's models: the CI models, then the issue's three memory goals.
std::vector<std::string> list_curve_models() {
  std::vector<std::string> models;
  for (const CiModel& m : list_ci_models()) models.push_back(m.model);
  models.push_back("zoo:mobilenetv2-224-int8");
  models.push_back("zoo:mcunet-320kb-imagenet-int8");
  models.push_back(kIssueModels.front());
  return models;
}

// Large enough for every ordinary plan above (MobileNetV2-224: 1,505,280 B).
constexpr int64_t kBoardRamBytes = 4 * 1024 * 1024;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string short_name(const std::string& model) {
  const size_t slash = model.rfind('/');
  return slash == std::string::npos ? model : model.substr(slash + 1);
}

Result<double> parse_budget(const std::string& text) {
  if (text == "none") return partition::kNoLatencyBudget;
  double budget = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), budget);
  if (error != std::errc() || end != text.data() + text.size() || budget < 1.0) {
    return fail("--budgets: '" + text + "' is neither a ratio >= 1 nor none", ExitCode::kBadCommandLine);
  }
  return budget;
}

// Retired Cortex-M4 instructions of one invoke of `plan`'s emitted C.
Result<uint64_t> measure_m4(const CheckedModel& m, const plan::Plan& plan, const std::string& name) {
  TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> executed, exec::execute_plan(m.graph, plan, m.inputs));
  TINYFIT_ASSIGN_OR_RETURN(const EmittedBuild build, emit_and_build(m.graph, plan, m.inputs, executed,
                                                                    Target::kCortexM4, kBoardRamBytes, name));
  TINYFIT_ASSIGN_OR_RETURN(const ProgramReport report, run_program(Target::kCortexM4, build.executable));
  for (size_t o = 0; o < executed.size(); ++o) {
    if (!describe_byte_difference(report.outputs.at(o), executed[o]).empty()) {
      return fail("board output " + std::to_string(o) + " differs from the plan executor");
    }
  }
  return report.instructions;
}

std::string format_ratio(double value) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << value << "x";
  return out.str();
}

std::string format_budget(double budget) {
  if (budget == partition::kNoLatencyBudget) return "none";
  std::ostringstream out;
  out << budget;
  return out.str();
}

int run(int argc, char** argv) {
  CLI::App app{"tinyfit_bench_motes: issue 11's MOTES table"};
  std::vector<std::string> models;
  std::string model_set = "issue";
  std::string budgets_option = "none,1.0,1.01,1.02,1.05,1.10";
  bool m4 = false;
  double time_limit_seconds = 60.0;
  app.add_option("--model", models, "models (default: the --models set)");
  app.add_option("--models", model_set, "issue: the issue's list; curve: the CI models and the three memory goals")
      ->check(CLI::IsMember({"issue", "curve"}))
      ->capture_default_str();
  app.add_option("--budgets", budgets_option, "comma list of latency budgets (delta) or none")->capture_default_str();
  app.add_flag("--m4", m4, "measure the ordinary and motes plans' instructions on the emulated Cortex-M4");
  app.add_option("--time-limit", time_limit_seconds, "seconds per compile's searches")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  if (models.empty()) models = model_set == "curve" ? list_curve_models() : kIssueModels;
  std::vector<double> budgets;
  for (size_t begin = 0; begin <= budgets_option.size();) {
    const size_t comma = std::min(budgets_option.find(',', begin), budgets_option.size());
    Result<double> budget = parse_budget(budgets_option.substr(begin, comma - begin));
    if (!budget) {
      std::cerr << "tinyfit_bench_motes: error: " << budget.error().message << "\n";
      return 2;
    }
    budgets.push_back(*budget);
    begin = comma + 1;
  }
  if (m4) {
    if (std::string missing = find_missing_tools(Target::kCortexM4); !missing.empty()) {
      std::cerr << "tinyfit_bench_motes: error: " << missing << " is not installed\n";
      return 2;
    }
  }

  std::cout << "| model | delta | ordinary peak B | best without motes (arena B) | motes peak B | motes arena B "
               "| loops | MACs ratio | calls | verified | compile s | M4 instructions ratio (predicted) "
               "| M4 instructions ratio (measured) |\n"
            << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const std::string& model : models) {
    std::cerr << short_name(model) << "...\n";
    Result<CheckedModel> m = load_checked_model(model);
    if (!m) {
      std::cout << "| " << short_name(model) << " | | " << first_line(m.error().format()) << " |\n";
      continue;
    }
    std::optional<uint64_t> ordinary_instructions;
    std::map<std::string, uint64_t> measured_plans;  // printed motes plan -> its instructions
    for (double budget : budgets) {
      driver::CompileOptions options;
      options.latency_budget = budget;
      options.deadline = Deadline(std::chrono::duration<double>(time_limit_seconds));
      Result<driver::CompileReport> report = driver::compile_model(m->graph, options);
      std::cout << "| " << short_name(model) << " | " << format_budget(budget) << " | ";
      if (!report) {
        std::cout << first_line(report.error().format()) << " |\n";
        continue;
      }
      const driver::CompileCandidate* best_without = nullptr;
      const driver::CompileCandidate* motes = nullptr;
      for (const driver::CompileCandidate& c : report->candidates) {
        if (c.rank == driver::LatencyRank::kMotes) {
          motes = &c;
        } else if (c.built && (!best_without || c.arena_bytes < best_without->arena_bytes)) {
          best_without = &c;
        }
      }
      std::cout << format_thousands(report->ordinary().peak_bytes) << " | " << best_without->name << " ("
                << format_thousands(best_without->arena_bytes) << ") | ";
      if (!motes || !motes->built) {
        std::cout << (motes ? first_line(motes->note) : std::string("no motes candidate")) << " |\n";
        continue;
      }
      // The chosen plan was verified by the compile; a motes plan not chosen is verified here.
      bool verified = report->verification.verified;
      if (report->result().rank != driver::LatencyRank::kMotes) {
        const Result<driver::Verification> v = driver::verify_by_execution(m->graph, motes->plan, options.seed, true);
        verified = v && v->verified;
      }
      std::cout << format_thousands(motes->peak_bytes) << " | " << format_thousands(motes->arena_bytes) << " | "
                << motes->loops << " | "
                << format_ratio(static_cast<double>(motes->macs) / static_cast<double>(report->ordinary().macs))
                << " | " << format_thousands(motes->kernel_calls) << " | "
                << (verified ? "yes" : "no")
                << " | " << std::fixed << std::setprecision(1) << report->compile_seconds << " | ";
      const std::optional<double>& ordinary_predicted = report->ordinary().predicted_instructions;
      if (motes->predicted_instructions && ordinary_predicted) {
        std::cout << format_ratio(*motes->predicted_instructions / *ordinary_predicted) << " | ";
      } else {
        std::cout << "not predicted | ";
      }
      if (!m4) {
        std::cout << "- |\n";
        continue;
      }
      const std::string name = "bench/motes_" + short_name(model);
      if (!ordinary_instructions) {
        Result<uint64_t> measured = measure_m4(*m, report->ordinary().plan, name + "_ordinary");
        if (!measured) {
          std::cout << "ordinary: " << first_line(measured.error().format()) << " |\n";
          continue;
        }
        ordinary_instructions = *measured;
      }
      // A budget that gives the same plan as another (printed alike) is not run again.
      std::ostringstream printed;
      plan::print_plan(printed, m->graph, motes->plan);
      auto cached = measured_plans.find(printed.str());
      Result<uint64_t> measured = cached != measured_plans.end() ? Result<uint64_t>(cached->second)
                                                                 : measure_m4(*m, motes->plan, name + "_motes");
      if (measured) measured_plans.emplace(printed.str(), *measured);
      if (!measured) {
        std::cout << first_line(measured.error().format()) << " |\n";
        continue;
      }
      std::cout << format_ratio(static_cast<double>(*measured) / static_cast<double>(*ordinary_instructions))
                << " (" << format_thousands(static_cast<int64_t>(*measured)) << " / "
                << format_thousands(static_cast<int64_t>(*ordinary_instructions)) << ") |\n";
    }
  }
  return 0;
}

}  // namespace
}  // namespace tinyfit::mcu

int main(int argc, char** argv) { return tinyfit::mcu::run(argc, argv); }
