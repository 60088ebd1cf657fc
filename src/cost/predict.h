// The predictor (DESIGN.md "Cost"): a plan's retired instructions for one
// inference from its work (plan_work.h) and a target's table: every kernel's
// summed call features times its fitted coefficients, plus the run
// function's own counts (prologue, loop control) times theirs. Linear, so a
// plan's prediction is the sum of its calls'.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cost/cost_table.h"
#include "cost/plan_work.h"
#include "support/diag.h"

namespace tinyfit::cost {

// The kernels `work` calls that `table` has no row for (added to runtime/
// after the table was measured), in name order.
std::vector<std::string> find_unmeasured_kernels(const CostTable& table, const PlanWork& work);

// What: one inference's predicted instructions.
// Guarantees: a figure only when the table covers every kernel the plan
// calls; otherwise an error naming the table and every kernel it lacks, and
// the command that measures them (never a partial sum, which would look like
// a fast plan).
Result<double> predict_instructions(const CostTable& table, const PlanWork& work);

// One kernel's calls alone (no run counts): `kernel`'s row times its call
// features, the counts the row may not use (feature_mask.h) left out, so a
// coefficient left in a row from before its mask never contributes.
double predict_kernel_instructions(std::string_view kernel, const KernelCost& cost, const FeatureVector& features);

}  // namespace tinyfit::cost
