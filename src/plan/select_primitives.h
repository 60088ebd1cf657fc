// select-primitives: which primitive runs each call site of a plan (TASO:
// direct, im2col + GEMM, Winograd, ...; each with its own time, workspace and
// data layouts), as an integer linear programme solved by CBC.
//
// Model (TASO §4, eqs. 8-15), over plain records:
//   - x[s][c] = 1 when site s runs choice c; every site runs exactly one;
//   - time = sum of the chosen instructions (a site inside a loop counts every
//     iteration) plus, on every layout edge whose producer's output layout
//     differs from the consumer's input layout, the edge's transformation
//     cost (TASO eq. 10, linearised: y >= x[p][a] + x[q][b] - 1 per
//     mismatching pair, y >= 0);
//   - memory is the plan's peak, not TASO's sum: at every plan position the
//     bytes live there without workspaces plus the workspaces of the sites at
//     that position (a workspace lives only during its call). This is tighter
//     than TASO's eq. 9, which adds every layer's memory, and than its
//     layer-by-layer eq. 15, which ignores the other live tensors.
// Three questions:
//   select_fastest_within:  minimise time subject to peak <= budget  (eq. 13);
//   select_smallest_within: minimise peak subject to time <= budget  (eqs. 14/15);
//   compute_pareto_frontier: every (peak, time) point that no other selection
//     beats on both, from the fastest selection to the smallest.
// Exact when CBC proves optimality (Selection::proven_optimal); a Deadline
// stops it with the best selection found so far.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/deadline.h"

namespace tinyfit::plan {

struct PrimitiveChoice {
  std::string kernel;         // the runtime kernel, for reports
  double instructions = 0.0;  // predicted per inference, loop iterations included
  int64_t workspace_bytes = 0;
  int input_layout = 0;       // the layout it reads its activation input in
  int output_layout = 0;      // and writes its output in
};

struct SelectionSite {
  std::vector<PrimitiveChoice> choices;  // at least one
  int position = 0;                      // the plan position where its workspace lives
};

// A producer site feeding a consumer site: when the producer's output layout
// differs from the consumer's input layout, a transformation costing
// `transform_instructions` runs between them (in place: no memory, TASO §4.3).
struct LayoutEdge {
  int producer = 0;
  int consumer = 0;
  double transform_instructions = 0.0;
};

struct SelectionProblem {
  std::vector<SelectionSite> sites;
  std::vector<int64_t> live_bytes;  // per plan position, without any workspace
  std::vector<LayoutEdge> edges;
};

struct Selection {
  bool feasible = false;        // false: no selection meets the budget
  bool proven_optimal = false;  // CBC proved it (false after a deadline)
  std::vector<int> choice;      // per site, the index of its choice
  double instructions = 0.0;    // time of this selection, transformations included
  int64_t peak_bytes = 0;       // its peak, workspaces included
};

// Time and peak of a given selection (one choice per site).
Selection evaluate_selection(const SelectionProblem& problem, std::vector<int> choice);

// Requires: every site has a choice; positions index live_bytes; edge sites exist.
Selection select_fastest_within(const SelectionProblem& problem, int64_t peak_budget_bytes,
                                const Deadline& deadline = {});
Selection select_smallest_within(const SelectionProblem& problem, double instruction_budget,
                                 const Deadline& deadline = {});

// Pareto points ordered from the fastest to the smallest (strictly decreasing
// peak, strictly increasing time), at most `max_points`. The deadline stops
// the walk after the fastest point, which is always solved.
std::vector<Selection> compute_pareto_frontier(const SelectionProblem& problem, const Deadline& deadline = {},
                                               int max_points = 64);

}  // namespace tinyfit::plan
