// Gives conv-family calls the workspace of their fastest primitive
// (exec/conv_primitive.h): the plan then counts it as a kWorkspace buffer,
// live at its call only (plan/plan_memory.h), and the binding's rule picks
// that primitive. This is TASO's "layer-by-layer workspace" in its simplest
// form, every call at once; issue 13 §4's selection will decide per call.
#pragma once

#include <functional>

#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::exec {

// Adds one kWorkspace buffer (alignment kConvWorkspaceAlignment) to every
// call without a workspace whose fastest primitive needs one (and, when
// `wanted` is given, that it accepts), and reports how many it added.
// Requires: `plan` lowered from `graph` (its offsets are then stale: place it
// again before running or emitting it).
// Guarantees: verify_plan still holds; no other buffer or view changes.
Result<int> add_kernel_workspaces(const ir::Graph& graph, plan::Plan& plan,
                                  const std::function<bool(const plan::KernelCall&)>& wanted = {});

}  // namespace tinyfit::exec
