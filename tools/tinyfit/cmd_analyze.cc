// `tinyfit analyze MODEL`: the memory picture of one execution strategy:
// peak and arena, the bottleneck, a lower bound, flash, MACs and the per-step
// profile (execution and interval stages), for the given order or a better one.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "driver/memory_report.h"
#include "model_option.h"
#include "plan/placement_input.h"
#include "support/byte_size.h"
#include "text_table.h"

namespace tinyfit::tools {
namespace {

struct AnalyzeCliOptions {
  ModelOption model;
  std::string order = "given";
  std::string placement = "best";
  bool inplace = false;
  bool json = false;
  double time_limit_seconds = 60.0;
};

nlohmann::json make_analyze_json(const driver::MemoryReport& r) {
  nlohmann::json tensors = nlohmann::json::array();
  for (const driver::LiveTensor& t : r.bottleneck.tensors) {
    tensors.push_back({{"name", t.name}, {"bytes", t.bytes}});
  }
  nlohmann::json steps = nlohmann::json::array();
  for (size_t s = 0; s < r.steps.size(); ++s) {
    steps.push_back({{"step", s},
                     {"node", r.steps[s].node},
                     {"op", r.steps[s].op},
                     {"execution_bytes", r.steps[s].execution_bytes},
                     {"interval_bytes", r.steps[s].interval_bytes}});
  }
  return {{"model", r.model},
          {"peak_bytes", r.peak_bytes},
          {"arena_bytes", r.arena_bytes},
          {"flash_bytes", r.flash_bytes},
          {"macs", r.macs},
          {"lower_bound_bytes", r.lower_bound_bytes},
          {"input_bytes", r.input_bytes},
          {"techniques", r.techniques},
          {"order", r.order},
          {"order_optimal", r.order_optimal},
          {"order_note", r.order_note},
          {"placement", r.placement},
          {"placement_optimal", r.placement_optimal},
          {"placement_note", r.placement_note},
          {"fragmentation", plan::compute_fragmentation(r.arena_bytes, r.peak_bytes)},
          {"bottleneck", {{"step", r.bottleneck.step}, {"operator", r.bottleneck.node}, {"op", r.bottleneck.op}, {"tensors", tensors}}},
          {"steps", steps},
          {"schedule", r.schedule},
          {"verified", r.verified}};
}

void print_analyze_text(std::ostream& out, const driver::MemoryReport& r) {
  out << "model: " << r.model << "\n";
  using Align = TextTable::Align;
  TextTable steps({"step", "node", "op", "executing", "after"},
                  {Align::kRight, Align::kLeft, Align::kLeft, Align::kRight, Align::kRight});
  steps.add_row({"-", "(model inputs)", "", "", format_thousands(r.input_bytes)});
  for (size_t s = 0; s < r.steps.size(); ++s) {
    const driver::StepReport& step = r.steps[s];
    std::string marker = static_cast<int>(s) == r.bottleneck.step ? " <- peak" : "";
    steps.add_row({std::to_string(s), step.node, step.op, format_thousands(step.execution_bytes) + marker,
                   format_thousands(step.interval_bytes)});
  }
  out << "memory per step (bytes while the operator runs, and after it):\n";
  steps.print(out);
  out << "bottleneck: step " << r.bottleneck.step << ", " << r.bottleneck.node << " (" << r.bottleneck.op
      << "), live tensors:\n";
  for (const driver::LiveTensor& t : r.bottleneck.tensors) {
    out << "  " << t.name << ": " << format_thousands(t.bytes) << "\n";
  }
  std::string techniques;
  for (const std::string& t : r.techniques) techniques += (techniques.empty() ? "" : ", ") + t;
  out << "order: " << r.order << (r.order_optimal ? " (optimal)" : "")
      << (r.order_note.empty() ? "" : " - " + r.order_note) << "\n"
      << "techniques: " << (techniques.empty() ? "none (ordinary execution)" : techniques) << "\n"
      << "peak_bytes: " << format_thousands(r.peak_bytes) << "\n"
      << "arena_bytes: " << format_thousands(r.arena_bytes) << " (" << r.placement
      << (r.placement_optimal ? ", optimal" : "") << ")\n"
      << "lower_bound_bytes: " << format_thousands(r.lower_bound_bytes) << "\n"
      << "flash_bytes: " << format_thousands(r.flash_bytes) << "\n"
      << "macs: " << format_thousands(r.macs) << "\n";
}

// A progress line on a terminal only: logs and pipes stay clean.
std::function<void(double)> make_terminal_progress(bool enabled) {
  if (!enabled || !isatty(STDERR_FILENO)) return {};
  return [](double fraction) {
    std::fprintf(stderr, "\rordering: %3d%%", static_cast<int>(fraction * 100.0));
    if (fraction >= 1.0) std::fprintf(stderr, "\r              \r");
  };
}

Status run_analyze(const AnalyzeCliOptions& cli) {
  TINYFIT_ASSIGN_OR_RETURN(ir::Graph graph, load_model(cli.model));
  driver::AnalyzeOptions options;
  options.order = cli.order;
  options.placement = cli.placement;
  options.inplace = cli.inplace;
  options.deadline = Deadline(std::chrono::duration<double>(cli.time_limit_seconds));
  options.progress = make_terminal_progress(!cli.json);
  TINYFIT_ASSIGN_OR_RETURN(driver::MemoryReport report, driver::analyze_memory(graph, options));
  if (cli.json) {
    std::cout << make_analyze_json(report).dump(2) << std::endl;
  } else {
    print_analyze_text(std::cout, report);
  }
  return {};
}

}  // namespace

CommandAction setup_analyze_command(CLI::App& app) {
  auto cli = std::make_shared<AnalyzeCliOptions>();
  add_model_option(app, cli->model);
  app.add_option("--order", cli->order, "operator order: given, rpo, exact, hierarchical or best")
      ->check(CLI::IsMember({"given", "rpo", "exact", "hierarchical", "best"}));
  app.add_option("--placement", cli->placement,
                 "arena placement: greedy-by-size, greedy-by-conflicts, best-fit, exact or best");
  app.add_flag("--inplace", cli->inplace, "let element-wise ops and depthwise convs overwrite a dying input");
  app.add_option("--time-limit", cli->time_limit_seconds, "seconds for the searches (best found so far after)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json", cli->json, "print one JSON object instead of tables");
  return [cli] { return run_analyze(*cli); };
}

}  // namespace tinyfit::tools
