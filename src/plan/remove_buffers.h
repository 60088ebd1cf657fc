// Removes buffers from a Plan, renumbering the rest in order: every view,
// workspace, model input and output, and row loop overlap is renamed.
#pragma once

#include <vector>

#include "plan/plan.h"

namespace tinyfit::plan {

// Requires: removed.size() == plan.buffers.size(); no call, model input or
// output, or loop overlap refers to a removed buffer (an internal error
// otherwise). Guarantees: the kept buffers keep their order.
void remove_buffers(Plan& plan, const std::vector<bool>& removed);

}  // namespace tinyfit::plan
