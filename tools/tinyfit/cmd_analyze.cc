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
#include "driver/acg_report.h"
#include "driver/memory_report.h"
#include "json_text.h"
#include "model_option.h"
#include "plan/placement_input.h"
#include "support/byte_size.h"
#include "support/display_text.h"
#include "text_table.h"

namespace tinyfit::tools {
namespace {

struct AnalyzeCliOptions {
  ModelOption model;
  std::string order = "given";
  std::string placement = "best";
  bool inplace = false;
  bool acg = false;
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

nlohmann::json make_acg_json(const driver::AcgReport& acg) {
  nlohmann::json cells = nlohmann::json::array();
  for (const driver::AcgCellReport& cell : acg.cells) {
    nlohmann::json components = nlohmann::json::array();
    for (const driver::AcgComponentReport& c : cell.components) {
      components.push_back({{"axes", c.axis_names},
                            {"min_extent", c.min_extent},
                            {"max_extent", c.max_extent},
                            {"members", c.members}});
    }
    cells.push_back({{"first_operator", cell.first_node},
                     {"last_operator", cell.last_node},
                     {"operator_count", cell.operator_count},
                     {"components", components}});
  }
  return {{"vertex_count", acg.vertex_count}, {"edge_count", acg.edge_count}, {"cells", cells}};
}

// One line per component: its axis names, extents, and its first two and last
// members (--json lists them all).
void print_acg_text(std::ostream& out, const driver::AcgReport& acg) {
  out << "axis connecting graph: " << acg.vertex_count << " axes, " << acg.edge_count << " edges, "
      << acg.cells.size() << " cells\n";
  using Align = TextTable::Align;
  for (size_t i = 0; i < acg.cells.size(); ++i) {
    const driver::AcgCellReport& cell = acg.cells[i];
    out << "cell " << i << ": " << cell.operator_count << " operator" << (cell.operator_count == 1 ? "" : "s")
        << ", " << escape_for_display(cell.first_node)
        << (cell.operator_count > 1 ? " .. " + escape_for_display(cell.last_node) : "") << "\n";
    TextTable table({"axes", "extent", "count", "members"},
                    {Align::kLeft, Align::kRight, Align::kRight, Align::kLeft});
    for (const driver::AcgComponentReport& c : cell.components) {
      std::string axes;
      for (const std::string& name : c.axis_names) axes += (axes.empty() ? "" : ", ") + name;
      const std::string extent = c.min_extent == c.max_extent
                                     ? std::to_string(c.min_extent)
                                     : std::to_string(c.max_extent) + ".." + std::to_string(c.min_extent);
      std::string members;
      const size_t n = c.members.size();
      for (size_t m = 0; m < n && m < 2; ++m) members += (m ? ", " : "") + c.members[m];
      if (n > 3) members += ", ..";
      if (n > 2) members += ", " + c.members.back();
      table.add_row({axes, extent, std::to_string(n), members});
    }
    table.print(out);
  }
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
  out << "bottleneck: step " << r.bottleneck.step << ", " << escape_for_display(r.bottleneck.node) << " ("
      << r.bottleneck.op
      << "), live tensors:\n";
  for (const driver::LiveTensor& t : r.bottleneck.tensors) {
    out << "  " << escape_for_display(t.name) << ": " << format_thousands(t.bytes) << "\n";
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
    nlohmann::json json = make_analyze_json(report);
    if (cli.acg) json["acg"] = make_acg_json(driver::describe_acg(graph));
    std::cout << format_json(json) << std::endl;
  } else {
    print_analyze_text(std::cout, report);
    if (cli.acg) print_acg_text(std::cout, driver::describe_acg(graph));
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
                 "arena placement: greedy-by-size, greedy-by-conflicts, best-fit, hill-climb, sweep-search, "
                 "exact or best");
  app.add_flag("--inplace", cli->inplace,
               "let element-wise ops and depthwise convs overwrite a dying input (chosen with the order)");
  app.add_flag("--acg", cli->acg,
               "also print the axis connecting graph: per cell, the axes that can be cut together (MOTES)");
  app.add_option("--time-limit", cli->time_limit_seconds, "seconds for the searches (best found so far after)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--json", cli->json, "print one JSON object instead of tables");
  return [cli] { return run_analyze(*cli); };
}

}  // namespace tinyfit::tools
