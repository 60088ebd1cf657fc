#include "plan/select_primitives.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <coin/CbcModel.hpp>
#include <coin/CoinPackedVector.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include "plan/cbc_deadline_handler.h"
#include "support/diag.h"

namespace tinyfit::plan {
namespace {

// Relative slack on an instruction budget that a solution found at that very
// time must meet despite floating-point sums (instructions reach 1e9).
constexpr double kTimeSlack = 1e-9;

enum class Objective { kMinTime, kMinPeak };

// The columns of the model: x[s][c] binaries, one continuous y per layout edge
// (its transformation runs), and, when minimising the peak, the peak P.
struct Columns {
  std::vector<std::vector<int>> x;
  std::vector<int> y;  // -1 for an edge whose layouts always agree
  int peak = -1;
};

bool layouts_differ(const SelectionProblem& problem, const LayoutEdge& edge, int a, int b) {
  return problem.sites[static_cast<size_t>(edge.producer)].choices[static_cast<size_t>(a)].output_layout !=
         problem.sites[static_cast<size_t>(edge.consumer)].choices[static_cast<size_t>(b)].input_layout;
}

// The positions that hold sites, with their sites.
std::vector<std::vector<int>> group_sites_by_position(const SelectionProblem& problem) {
  std::vector<std::vector<int>> sites_at(problem.live_bytes.size());
  for (size_t s = 0; s < problem.sites.size(); ++s) {
    sites_at.at(static_cast<size_t>(problem.sites[s].position)).push_back(static_cast<int>(s));
  }
  return sites_at;
}

// Adds the columns, the one-choice rows and the layout rows; the objective is
// time for kMinTime, the peak column for kMinPeak.
Columns add_selection_columns(const SelectionProblem& problem, Objective objective, OsiClpSolverInterface& solver) {
  Columns cols;
  const double time_weight = objective == Objective::kMinTime ? 1.0 : 0.0;
  for (const SelectionSite& site : problem.sites) {
    TINYFIT_CHECK(!site.choices.empty()) << "a selection site without choices";
    cols.x.emplace_back();
    CoinPackedVector one;
    for (const PrimitiveChoice& choice : site.choices) {
      solver.addCol(0, nullptr, nullptr, 0.0, 1.0, time_weight * choice.instructions);
      solver.setInteger(solver.getNumCols() - 1);
      cols.x.back().push_back(solver.getNumCols() - 1);
      one.insert(cols.x.back().back(), 1.0);
    }
    solver.addRow(one, 1.0, 1.0);
  }
  for (const LayoutEdge& edge : problem.edges) {
    const auto& producer = cols.x.at(static_cast<size_t>(edge.producer));
    const auto& consumer = cols.x.at(static_cast<size_t>(edge.consumer));
    int y = -1;
    for (size_t a = 0; a < producer.size(); ++a) {
      for (size_t b = 0; b < consumer.size(); ++b) {
        if (!layouts_differ(problem, edge, static_cast<int>(a), static_cast<int>(b))) continue;
        if (y < 0) {
          solver.addCol(0, nullptr, nullptr, 0.0, 1.0, time_weight * edge.transform_instructions);
          y = solver.getNumCols() - 1;
        }
        CoinPackedVector row;  // y >= x[p][a] + x[q][b] - 1
        row.insert(y, 1.0);
        row.insert(producer[a], -1.0);
        row.insert(consumer[b], -1.0);
        solver.addRow(row, -1.0, COIN_DBL_MAX);
      }
    }
    cols.y.push_back(y);
  }
  return cols;
}

// The time of a selection as a row over the columns.
CoinPackedVector make_time_row(const SelectionProblem& problem, const Columns& cols) {
  CoinPackedVector row;
  for (size_t s = 0; s < problem.sites.size(); ++s) {
    for (size_t c = 0; c < problem.sites[s].choices.size(); ++c) {
      row.insert(cols.x[s][c], problem.sites[s].choices[c].instructions);
    }
  }
  for (size_t e = 0; e < problem.edges.size(); ++e) {
    if (cols.y[e] >= 0) row.insert(cols.y[e], problem.edges[e].transform_instructions);
  }
  return row;
}

std::vector<int> read_choices(const Columns& cols, const double* solution) {
  std::vector<int> choice;
  for (const std::vector<int>& site : cols.x) {
    int chosen = 0;
    for (size_t c = 0; c < site.size(); ++c) {
      if (solution[site[c]] > 0.5) chosen = static_cast<int>(c);
    }
    choice.push_back(chosen);
  }
  return choice;
}

// Branch and bound; the answer is re-evaluated from the records (never the
// solver's own objective), so rounding inside CBC cannot leak into figures.
Selection solve(const SelectionProblem& problem, OsiClpSolverInterface& solver, const Columns& cols,
                const Deadline& deadline) {
  solver.messageHandler()->setLogLevel(0);
  CbcModel model(solver);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  model.solver()->messageHandler()->setLogLevel(0);
  model.setNumberThreads(0);
  CbcDeadlineHandler handler(deadline);
  model.passInEventHandler(&handler);
  model.initialSolve();
  model.branchAndBound();
  const double* solution = model.bestSolution();
  if (solution == nullptr) return {};
  Selection selection = evaluate_selection(problem, read_choices(cols, solution));
  selection.proven_optimal = model.isProvenOptimal() && model.status() == 0;
  return selection;
}

}  // namespace

Selection evaluate_selection(const SelectionProblem& problem, std::vector<int> choice) {
  TINYFIT_CHECK(choice.size() == problem.sites.size()) << "one choice per site";
  Selection selection;
  selection.feasible = true;
  std::vector<int64_t> live = problem.live_bytes;
  for (size_t s = 0; s < problem.sites.size(); ++s) {
    const PrimitiveChoice& c = problem.sites[s].choices.at(static_cast<size_t>(choice[s]));
    selection.instructions += c.instructions;
    live.at(static_cast<size_t>(problem.sites[s].position)) += c.workspace_bytes;
  }
  for (const LayoutEdge& edge : problem.edges) {
    if (layouts_differ(problem, edge, choice.at(static_cast<size_t>(edge.producer)),
                       choice.at(static_cast<size_t>(edge.consumer)))) {
      selection.instructions += edge.transform_instructions;
    }
  }
  selection.peak_bytes = live.empty() ? 0 : *std::max_element(live.begin(), live.end());
  selection.choice = std::move(choice);
  return selection;
}

Selection select_fastest_within(const SelectionProblem& problem, int64_t peak_budget_bytes,
                                const Deadline& deadline) {
  const std::vector<std::vector<int>> sites_at = group_sites_by_position(problem);
  for (size_t p = 0; p < problem.live_bytes.size(); ++p) {
    if (problem.live_bytes[p] > peak_budget_bytes) return {};  // no workspace choice helps
  }
  OsiClpSolverInterface solver;
  const Columns cols = add_selection_columns(problem, Objective::kMinTime, solver);
  for (size_t p = 0; p < sites_at.size(); ++p) {
    if (sites_at[p].empty()) continue;
    CoinPackedVector row;  // workspaces at p fit beside what is live there
    for (int s : sites_at[p]) {
      for (size_t c = 0; c < cols.x[static_cast<size_t>(s)].size(); ++c) {
        const int64_t ws = problem.sites[static_cast<size_t>(s)].choices[c].workspace_bytes;
        if (ws != 0) row.insert(cols.x[static_cast<size_t>(s)][c], static_cast<double>(ws));
      }
    }
    if (row.getNumElements() == 0) continue;
    solver.addRow(row, -COIN_DBL_MAX, static_cast<double>(peak_budget_bytes - problem.live_bytes[p]));
  }
  return solve(problem, solver, cols, deadline);
}

Selection select_smallest_within(const SelectionProblem& problem, double instruction_budget,
                                 const Deadline& deadline) {
  const std::vector<std::vector<int>> sites_at = group_sites_by_position(problem);
  OsiClpSolverInterface solver;
  Columns cols = add_selection_columns(problem, Objective::kMinPeak, solver);
  const int64_t live_peak =
      problem.live_bytes.empty() ? 0 : *std::max_element(problem.live_bytes.begin(), problem.live_bytes.end());
  solver.addCol(0, nullptr, nullptr, static_cast<double>(live_peak), COIN_DBL_MAX, 1.0);
  cols.peak = solver.getNumCols() - 1;
  for (size_t p = 0; p < sites_at.size(); ++p) {
    if (sites_at[p].empty()) continue;
    CoinPackedVector row;  // P - workspaces at p >= live at p
    row.insert(cols.peak, 1.0);
    for (int s : sites_at[p]) {
      for (size_t c = 0; c < cols.x[static_cast<size_t>(s)].size(); ++c) {
        const int64_t ws = problem.sites[static_cast<size_t>(s)].choices[c].workspace_bytes;
        if (ws != 0) row.insert(cols.x[static_cast<size_t>(s)][c], -static_cast<double>(ws));
      }
    }
    solver.addRow(row, static_cast<double>(problem.live_bytes[p]), COIN_DBL_MAX);
  }
  solver.addRow(make_time_row(problem, cols), -COIN_DBL_MAX, instruction_budget * (1.0 + kTimeSlack));
  Selection selection = solve(problem, solver, cols, deadline);
  if (selection.feasible && selection.instructions > instruction_budget * (1.0 + kTimeSlack)) return {};
  return selection;
}

std::vector<Selection> compute_pareto_frontier(const SelectionProblem& problem, const Deadline& deadline,
                                               int max_points) {
  std::vector<Selection> frontier;
  int64_t budget = std::numeric_limits<int64_t>::max();
  while (static_cast<int>(frontier.size()) < max_points) {
    // The fastest point is solved even past the deadline (one small ILP), so
    // that a compile which spent the time limit still gets a frontier.
    const Deadline unlimited;
    const Deadline& limit = frontier.empty() ? unlimited : deadline;
    if (!frontier.empty() && deadline.expired()) break;
    const Selection fastest = select_fastest_within(problem, budget, limit);
    if (!fastest.feasible) break;
    // The smallest peak at that time: two selections may tie on time.
    Selection point = select_smallest_within(problem, fastest.instructions, limit);
    if (!point.feasible || point.peak_bytes > fastest.peak_bytes) point = fastest;
    point.proven_optimal = point.proven_optimal && fastest.proven_optimal;
    budget = point.peak_bytes - 1;
    frontier.push_back(std::move(point));
  }
  return frontier;
}

}  // namespace tinyfit::plan
