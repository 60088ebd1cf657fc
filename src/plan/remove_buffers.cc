#include "plan/remove_buffers.h"

#include <functional>

#include "support/diag.h"

namespace tinyfit::plan {

void remove_buffers(Plan& plan, const std::vector<bool>& removed) {
  TINYFIT_CHECK(removed.size() == plan.buffers.size()) << "a removal mask of the wrong size";
  std::vector<BufferId> renumbered(plan.buffers.size(), -1);
  std::vector<PlanBuffer> kept;
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    if (removed[b]) continue;
    renumbered[b] = static_cast<BufferId>(kept.size());
    kept.push_back(std::move(plan.buffers[b]));
  }
  plan.buffers = std::move(kept);
  auto rename = [&](BufferId& b) {
    b = renumbered.at(static_cast<size_t>(b));
    TINYFIT_CHECK(b >= 0) << "a removed buffer is still used";
  };
  std::function<void(std::vector<Step>&)> rename_steps = [&](std::vector<Step>& steps) {
    for (Step& step : steps) {
      if (Loop* loop = std::get_if<Loop>(&step.what)) {
        rename_steps(loop->body);
        for (LoopOverlap& overlap : loop->overlaps) {
          rename(overlap.input);
          rename(overlap.output);
        }
        continue;
      }
      KernelCall& call = std::get<KernelCall>(step.what);
      for (auto* views : {&call.inputs, &call.outputs}) {
        for (View& view : *views) rename(view.buffer);
      }
      if (call.workspace >= 0) rename(call.workspace);
    }
  };
  rename_steps(plan.steps);
  for (BufferId& b : plan.inputs) rename(b);
  for (BufferId& b : plan.outputs) rename(b);
}

}  // namespace tinyfit::plan
