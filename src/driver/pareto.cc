#include "driver/pareto.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "driver/compile_pipeline.h"
#include "driver/select_workspaces.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"

namespace tinyfit::driver {
namespace {

// Every point of `base`'s workspace frontier, placed.
Status add_base_points(const ir::Graph& graph, const CompileCandidate& base, const cost::CostTable& table,
                       const CompileOptions& options, ParetoReport& report, std::vector<ParetoPoint>& points) {
  TINYFIT_ASSIGN_OR_RETURN(const WorkspaceProblem problem, build_workspace_problem(graph, base.plan, table));
  for (const std::string& kernel : problem.unmeasured) {
    if (std::find(report.unmeasured.begin(), report.unmeasured.end(), kernel) == report.unmeasured.end()) {
      report.unmeasured.push_back(kernel);
    }
  }
  if (!problem.predicted) return {};  // the table lacks a kernel of this base: no figure for it
  std::vector<plan::Selection> selections;
  if (problem.problem.sites.empty()) {
    selections.push_back(plan::evaluate_selection(problem.problem, {}));
  } else {
    const auto start = std::chrono::steady_clock::now();
    selections = plan::compute_pareto_frontier(problem.problem, options.deadline);
    report.ilp_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.stopped_by_time_limit = report.stopped_by_time_limit || options.deadline.expired();
  }
  for (const plan::Selection& selection : selections) {
    TINYFIT_ASSIGN_OR_RETURN(plan::Plan selected, apply_workspace_selection(graph, base.plan, problem, selection));
    plan::PlacementOptions placement_options;
    placement_options.deadline = options.deadline;
    TINYFIT_RETURN_IF_ERROR(plan::place_plan(selected, options.placement, placement_options));
    TINYFIT_RETURN_IF_ERROR(plan::verify_plan(graph, selected));
    ParetoPoint point;
    point.plan = base.name;
    point.workspaces = static_cast<int>(std::count(selection.choice.begin(), selection.choice.end(), 1));
    point.sites = static_cast<int>(problem.problem.sites.size());
    point.peak_bytes = plan::compute_plan_memory(selected).peak_bytes;
    point.arena_bytes = selected.arena_bytes;
    point.predicted_instructions = problem.fixed_instructions + selection.instructions;
    point.plan_built = std::move(selected);
    points.push_back(std::move(point));
    ++report.points_evaluated;
  }
  return {};
}

// The points no other point beats on both arena and instructions, fastest first.
std::vector<ParetoPoint> keep_frontier(std::vector<ParetoPoint> points) {
  std::sort(points.begin(), points.end(), [](const ParetoPoint& a, const ParetoPoint& b) {
    if (a.predicted_instructions != b.predicted_instructions) return a.predicted_instructions < b.predicted_instructions;
    return a.arena_bytes < b.arena_bytes;
  });
  std::vector<ParetoPoint> frontier;
  for (ParetoPoint& point : points) {
    if (!frontier.empty() && point.arena_bytes >= frontier.back().arena_bytes) continue;
    frontier.push_back(std::move(point));
  }
  return frontier;
}

}  // namespace

Result<ParetoReport> compute_pareto(const ir::Graph& graph, CompileOptions options, const cost::CostTable& table) {
  // The bases: every candidate compile builds, without budget and without
  // workspaces (the selection below adds them), not executed or emitted.
  options.sram_bytes.reset();
  options.select_primitives = false;
  options.execute = false;
  options.emit_dir.clear();
  TINYFIT_ASSIGN_OR_RETURN(const CompileReport compiled, compile_model(graph, options));
  ParetoReport report;
  report.model = compiled.model;
  report.target = options.target;
  std::vector<ParetoPoint> points;
  for (const CompileCandidate& candidate : compiled.candidates) {
    if (!candidate.built) continue;
    ++report.candidates;
    TINYFIT_RETURN_IF_ERROR(add_base_points(graph, candidate, table, options, report, points));
  }
  report.frontier = keep_frontier(std::move(points));
  return report;
}

}  // namespace tinyfit::driver
