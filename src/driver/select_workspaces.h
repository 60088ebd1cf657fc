// Primitive selection for one plan (issue 13 §4, TASO): which conv-family
// calls get the workspace their fastest primitive needs, chosen by the ILP of
// plan/select_primitives.h over the latency model's predictions (cost/) and
// the plan's live bytes at each position.
//
// The choices of a call are the two that its workspace decides
// (exec/conv_primitive.h: the binding runs the fastest primitive whose
// workspace the plan gave it): without one, the fastest primitive that needs
// none (the 1x1 or depthwise __dsp kernel, or the direct loops); with the
// workspace of its fastest primitive (im2col + GEMM), that primitive. A
// workspace lives at its call only, so the ILP counts it at that position
// with everything else live there. Every primitive reads and writes NHWC, so
// the problem has no layout edges.
//
// A choice whose kernels the cost table has not measured is not offered (its
// prediction would be a guess): the call keeps the other one, and
// WorkspaceProblem::unmeasured names the kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/cost_table.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "plan/select_primitives.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct WorkspaceProblem {
  plan::SelectionProblem problem;  // choice 0: no workspace; choice 1: the fastest primitive's
  std::vector<int> site_positions;  // per site, its plan position (plan::compute_plan_memory)
  // Instructions of the calls that are not sites (the rest of the plan and
  // the run function), so a selection's total is problem time + this.
  double fixed_instructions = 0.0;
  bool predicted = false;  // false: the table lacks a kernel of the plan itself (no sites, no figure)
  // Kernels the table lacks: a choice's (not offered), or the plan's own
  // (then nothing is predicted: no sites, fixed_instructions 0).
  std::vector<std::string> unmeasured;
};

// Requires: `plan` lowered from `graph` (verify_plan holds) with no
// workspace on a conv-family call yet.
// Guarantees: one site per call with two choices whose predictions both
// exist; problem.live_bytes == compute_plan_memory(plan).live_bytes.
Result<WorkspaceProblem> build_workspace_problem(const ir::Graph& graph, const plan::Plan& plan,
                                                 const cost::CostTable& table);

// `plan` with the workspaces `selection` chose (choice 1), unplaced.
// Requires: problem built from this plan; selection.choice one per site.
Result<plan::Plan> apply_workspace_selection(const ir::Graph& graph, const plan::Plan& plan,
                                             const WorkspaceProblem& problem, const plan::Selection& selection);

}  // namespace tinyfit::driver
