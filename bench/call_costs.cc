// tinyfit_bench_call_costs: the latency model's prediction per plan call of
// the plan `tinyfit compile` chooses, in the order the emitted C makes them,
// for bench/mcu_call_profile.py --predicted to put beside the measured
// instructions of each call (where a plan's prediction error is).
//
//   tinyfit_bench_call_costs MODEL [--techniques LIST] [--latency-budget D|none] [--sram SIZE]
//   tinyfit_bench_call_costs MODEL --bench-plan ordinary|pex|inplace
//
// --bench-plan predicts instead the plan tinyfit_bench_cost_model measures
// for that row of docs/benchmarks/cost_model.md (no workspaces), whose
// emitted C it leaves under build/tests/mcu/programs/cost_model/MODEL_PLAN:
// bench/mcu_call_profile.py --predicted --emitted that directory MODEL --
// --bench-plan pex puts the two side by side.
//
// Prints one line per runtime kernel of each plan call (a call in a loop sums
// its iterations), tab-separated: the plan call's index in emission order (its
// "/* step ... */" block of the emitted C), the kernel, the predicted
// instructions. Then a line "run <instructions>": the invoke function's own
// counts (prologue, loop control). Exit codes: 0 printed; 1 the model or the
// compile failed; 2 bad command line.
#include <charconv>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>

#include <CLI/CLI.hpp>

#include "checked_model.h"
#include "cost/predict.h"
#include "driver/compile_pipeline.h"
#include "exec/plan_work.h"
#include "partition/motes_search.h"
#include "plan/plan_walk.h"
#include "support/byte_size.h"

namespace tinyfit::bench {
namespace {

Result<double> parse_budget(const std::string& text) {
  if (text == "none") return partition::kNoLatencyBudget;
  double budget = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), budget);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(budget) || budget < 1.0) {
    return fail("--latency-budget '" + text + "': use a ratio >= 1 or none", ExitCode::kBadCommandLine);
  }
  return budget;
}

// The plan `tinyfit compile` chooses with `options`, or with `bench_plan`
// set, the one tinyfit_bench_cost_model measures for that row.
Result<plan::Plan> build_plan(const ir::Graph& graph, driver::CompileOptions options,
                              std::optional<mcu::Technique> bench_plan) {
  if (bench_plan) return mcu::build_technique_plan(graph, *bench_plan);
  options.execute = false;
  TINYFIT_ASSIGN_OR_RETURN(const driver::CompileReport report, driver::compile_model(graph, options));
  std::cerr << "plan " << report.result().name << ": arena " << format_thousands(report.result().arena_bytes)
            << " B\n";
  return report.result().plan;
}

Status print_call_costs(const std::string& model, const driver::CompileOptions& options,
                        std::optional<mcu::Technique> bench_plan) {
  TINYFIT_ASSIGN_OR_RETURN(const mcu::CheckedModel m, mcu::load_checked_model(model));
  TINYFIT_ASSIGN_OR_RETURN(const plan::Plan plan, build_plan(m.graph, options, bench_plan));
  TINYFIT_ASSIGN_OR_RETURN(const cost::CostTable* table, cost::find_cost_table(options.target));
  TINYFIT_ASSIGN_OR_RETURN(const auto work, exec::count_call_work(m.graph, plan));
  TINYFIT_ASSIGN_OR_RETURN(const cost::PlanWork whole, exec::count_plan_work(m.graph, plan));
  std::cout << std::fixed << std::setprecision(0);
  int index = 0;
  TINYFIT_RETURN_IF_ERROR(plan::walk_calls(plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) -> Status {
    for (const auto& [kernel, features] : work.at(&call).kernels) {
      const auto row = table->kernels.find(kernel);
      if (row == table->kernels.end()) return fail("the cost table has no row for " + kernel);
      std::cout << index << "\t" << kernel << "\t" << cost::predict_kernel_instructions(kernel, row->second, features) << "\n";
    }
    ++index;
    return {};
  }));
  double run = 0;
  for (size_t i = 0; i < whole.run.size(); ++i) run += table->run_coefficients[i] * whole.run[i];
  std::cout << "run\t" << run << "\n";
  return {};
}

int run(int argc, char** argv) {
  CLI::App app{"tinyfit_bench_call_costs: the latency model's prediction per call of the chosen plan"};
  std::string model, techniques = "order,inplace,pex,motes,overlap", budget = "1.05", sram;
  app.add_option("model", model, "model file or zoo:NAME")->required();
  app.add_option("--techniques", techniques, "as tinyfit compile --techniques")->capture_default_str();
  app.add_option("--latency-budget", budget, "as tinyfit compile --latency-budget")->capture_default_str();
  app.add_option("--sram", sram, "as tinyfit compile --sram");
  std::optional<mcu::Technique> bench_plan;
  const std::map<std::string, mcu::Technique> bench_plans = {
      {"ordinary", mcu::Technique::kOrdinary}, {"pex", mcu::Technique::kPex}, {"inplace", mcu::Technique::kInplace}};
  app.add_option("--bench-plan", bench_plan,
                 "ordinary, pex or inplace: the plan tinyfit_bench_cost_model measures for that row instead")
      ->transform(CLI::CheckedTransformer(bench_plans));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  driver::CompileOptions options;
  Result<driver::TechniqueSet> set = driver::parse_technique_list(techniques);
  Result<double> delta = parse_budget(budget);
  if (!set || !delta) {
    std::cerr << (set ? delta.error() : set.error()).format() << "\n";
    return 2;
  }
  options.techniques = *set;
  options.latency_budget = *delta;
  if (!sram.empty()) {
    const Result<int64_t> bytes = parse_byte_size(sram);
    if (!bytes) {
      std::cerr << "--sram: " << bytes.error().format() << "\n";
      return 2;
    }
    options.sram_bytes = *bytes;
  }
  if (const Status status = print_call_costs(model, options, bench_plan); !status) {
    std::cerr << status.error().format() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tinyfit::bench

int main(int argc, char** argv) { return tinyfit::bench::run(argc, argv); }
