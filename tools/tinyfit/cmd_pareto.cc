// `tinyfit pareto MODEL`: the memory/latency frontier of a model (issue 13
// §4): every plan compile builds, each with the frontier of its primitive
// choices, reduced to the points no other beats on both arena and predicted
// instructions. Thin: parse, call driver::compute_pareto, print.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "driver/pareto.h"
#include "driver/pareto_svg.h"
#include "json_text.h"
#include "model_option.h"
#include "support/byte_size.h"
#include "support/display_text.h"
#include "text_table.h"

namespace tinyfit::tools {
namespace {

struct ParetoCliOptions {
  ModelOption model;
  std::string techniques = "order,inplace,pex,motes,overlap";  // as tinyfit compile
  std::string target = "cortex-m4";
  double time_limit_seconds = 60.0;
  bool json = false;
  std::string svg_path;
};

std::string format_instructions(double instructions) {
  return format_thousands(static_cast<int64_t>(instructions + 0.5));
}

void print_text(std::ostream& out, const driver::ParetoReport& report) {
  out << "model: " << escape_for_display(report.model) << "\n"
      << "target: " << report.target << " (instructions predicted by the latency model)\n"
      << "frontier: " << report.frontier.size() << " points from " << report.points_evaluated
      << " placed selections of " << report.candidates << " plans; selection ILP " << report.ilp_seconds << " s"
      << (report.stopped_by_time_limit ? " (stopped by the time limit: fastest points only)" : "") << "\n";
  TextTable table({"arena", "peak", "predicted instructions", "vs fastest", "plan", "workspaces"},
                  {TextTable::Align::kRight, TextTable::Align::kRight, TextTable::Align::kRight,
                   TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kRight});
  const double fastest = report.frontier.empty() ? 1.0 : report.frontier.front().predicted_instructions;
  for (const driver::ParetoPoint& p : report.frontier) {
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3fx", p.predicted_instructions / fastest);
    table.add_row({format_thousands(p.arena_bytes), format_thousands(p.peak_bytes),
                   format_instructions(p.predicted_instructions), ratio, p.plan,
                   std::to_string(p.workspaces) + "/" + std::to_string(p.sites)});
  }
  table.print(out);
  if (!report.unmeasured.empty()) {
    out << "not offered (the cost table has not measured them):";
    for (const std::string& kernel : report.unmeasured) out << " " << kernel;
    out << "\n";
  }
}

nlohmann::json make_json(const driver::ParetoReport& report) {
  nlohmann::json points = nlohmann::json::array();
  for (const driver::ParetoPoint& p : report.frontier) {
    points.push_back({{"plan", p.plan},
                      {"workspaces", p.workspaces},
                      {"sites", p.sites},
                      {"peak_bytes", p.peak_bytes},
                      {"arena_bytes", p.arena_bytes},
                      {"predicted_instructions", p.predicted_instructions}});
  }
  return {{"model", report.model},
          {"target", report.target},
          {"frontier", points},
          {"plans", report.candidates},
          {"points_evaluated", report.points_evaluated},
          {"ilp_seconds", report.ilp_seconds},
          {"stopped_by_time_limit", report.stopped_by_time_limit},
          {"unmeasured_kernels", report.unmeasured}};
}

Status run_pareto(const ParetoCliOptions& cli) {
  driver::CompileOptions options;
  TINYFIT_ASSIGN_OR_RETURN(options.techniques, driver::parse_technique_list(cli.techniques));
  options.target = cli.target;
  TINYFIT_ASSIGN_OR_RETURN(const ir::Graph graph, load_model(cli.model));
  options.deadline = Deadline(std::chrono::duration<double>(cli.time_limit_seconds));
  TINYFIT_ASSIGN_OR_RETURN(const cost::CostTable* table, cost::find_cost_table(options.target));
  TINYFIT_ASSIGN_OR_RETURN(const driver::ParetoReport report, driver::compute_pareto(graph, options, *table));
  if (!cli.svg_path.empty()) {
    std::ofstream file(cli.svg_path, std::ios::binary);
    file << driver::render_pareto_svg(report);
    file.close();
    if (!file) return fail(cli.svg_path + ": cannot write the file", ExitCode::kBadCommandLine);
  }
  if (cli.json) {
    std::cout << format_json(make_json(report)) << std::endl;
  } else {
    print_text(std::cout, report);
  }
  return {};
}

}  // namespace

CommandAction setup_pareto_command(CLI::App& app) {
  auto cli = std::make_shared<ParetoCliOptions>();
  add_model_option(app, cli->model);
  app.add_option("--techniques", cli->techniques,
                 "comma list of order, inplace, pex, motes, overlap (or none): the plans whose primitive choices are traded")
      ->capture_default_str();
  app.add_option("--target", cli->target, "the cost table instructions are predicted with")
      ->check(CLI::IsMember({"cortex-m4", "cortex-m7", "host"}))
      ->capture_default_str();
  app.add_option("--time-limit", cli->time_limit_seconds, "seconds for the searches (best found so far after)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--json", cli->json, "print one JSON object instead of the table");
  app.add_option("--svg", cli->svg_path, "write the frontier as a chart")->type_name("FILE");
  return [cli] { return run_pareto(*cli); };
}

}  // namespace tinyfit::tools
