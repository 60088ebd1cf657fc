// `tinyfit pareto`: the memory/latency trade-off of a model (issue 13 §4,
// TASO's frontier), from the smallest plan to the fastest. Every plan the
// compile pipeline builds (ordinary, orders, in-place, PEX) is a base; on
// each, primitive selection (select_workspaces.h) gives the frontier of its
// workspace choices; the points no other point beats on both the arena and
// the predicted instructions form the model's frontier.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/cost_table.h"
#include "driver/compile_options.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct ParetoPoint {
  std::string plan;                // the base candidate's name ("ordinary", "pex+inplace", ...)
  int workspaces = 0;              // conv calls given their fastest primitive's workspace
  int sites = 0;                   // conv calls that could have been
  int64_t peak_bytes = 0;          // live peak, workspaces included
  int64_t arena_bytes = 0;         // placed with options.placement
  double predicted_instructions = 0.0;  // one inference on options.target
  plan::Plan plan_built;                // placed and verify_plan-valid, not executed
};

struct ParetoReport {
  std::string model;
  std::string target;
  // Fastest first: strictly decreasing arena, strictly increasing instructions.
  std::vector<ParetoPoint> frontier;
  int candidates = 0;        // base plans considered
  int points_evaluated = 0;  // selections placed, over all bases
  double ilp_seconds = 0.0;  // CBC's time for every base's frontier together
  bool stopped_by_time_limit = false;  // some base's frontier holds only its first points
  std::vector<std::string> unmeasured;  // kernels the cost table lacks (their choices were not offered)
};

// Requires: as compile_model (graph verified; known order and placement names).
// Guarantees: every frontier point is a placed, verify_plan-valid plan (not
// executed: `tinyfit compile --sram <arena>` builds and verifies a point).
// `table` predicts the instructions (cost::find_cost_table(options.target)
// for the command line).
Result<ParetoReport> compute_pareto(const ir::Graph& graph, CompileOptions options, const cost::CostTable& table);

}  // namespace tinyfit::driver
