#include "plan/lower_row_buffer_overlap.h"

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "plan/plan_walk.h"

namespace tinyfit::plan {
namespace {

// The largest multiple of `alignment` at most `value` (negative values too).
int64_t round_down(int64_t value, int64_t alignment) {
  const int64_t q = value / alignment;
  return (q * alignment > value ? q - 1 : q) * alignment;
}

struct BufferUses {
  std::set<BufferId> views;       // named by a view
  std::set<BufferId> workspaces;  // named as a call's workspace
};

void collect_uses(const std::vector<Step>& steps, BufferUses& uses) {
  const Status walked = walk_calls(steps, [&](const KernelCall& call, LoopNest) -> Status {
    for (const auto* views : {&call.inputs, &call.outputs}) {
      for (const View& view : *views) uses.views.insert(view.buffer);
    }
    if (call.workspace >= 0) uses.workspaces.insert(call.workspace);
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
}

// The loop's carried and partial buffers no declared overlap places and
// nothing outside the loop uses, largest first (ties by id).
std::vector<BufferId> find_row_buffers(const Plan& plan, size_t loop_step, const std::set<BufferId>& placed) {
  BufferUses inside, outside;
  collect_uses(plan.steps[loop_step].loop().body, inside);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (s != loop_step) collect_uses({plan.steps[s]}, outside);
  }
  std::vector<BufferId> found;
  for (BufferId b : inside.views) {
    const BufferRole role = plan.buffers[static_cast<size_t>(b)].role;
    if (role != BufferRole::kCarried && role != BufferRole::kPartial) continue;
    if (inside.workspaces.contains(b) || outside.views.contains(b) || outside.workspaces.contains(b) ||
        placed.contains(b)) {
      continue;
    }
    found.push_back(b);
  }
  std::sort(found.begin(), found.end(), [&](BufferId a, BufferId b) {
    const int64_t ab = plan.buffers[static_cast<size_t>(a)].bytes, bb = plan.buffers[static_cast<size_t>(b)].bytes;
    return ab != bb ? ab > bb : a < b;
  });
  return found;
}

}  // namespace

RowLoopOverlapResult apply_row_buffer_overlaps(Plan plan, int64_t alignment) {
  RowLoopOverlapResult result;
  std::set<BufferId> placed;  // buffers a declared overlap places
  const Status walked = walk_calls(plan.steps, [&](const KernelCall& call, LoopNest) -> Status {
    if (call.overlap && !call.outputs.empty()) placed.insert(call.outputs[0].buffer);
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  for (const Step& step : plan.steps) {
    if (!step.is_loop()) continue;
    for (const LoopOverlap& overlap : step.loop().overlaps) placed.insert(overlap.output);
  }
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (!plan.steps[s].is_loop()) continue;
    const Loop& loop = plan.steps[s].loop();
    if (loop.axis != LoopAxis::kRows || loop.overlaps.size() != 1 || loop.overlaps.front().offset_bytes <= 0) continue;
    if (std::any_of(loop.body.begin(), loop.body.end(), [](const Step& body) { return body.is_loop(); })) continue;
    const BufferId input = loop.overlaps.front().input;
    const int64_t input_bytes = plan.buffers[static_cast<size_t>(input)].bytes;
    int64_t top = loop.overlaps.front().offset_bytes;  // the lowest byte taken so far, from the input's start
    std::vector<LoopOverlap> declared;
    for (BufferId b : find_row_buffers(plan, s, placed)) {
      if (top <= 0) break;
      const PlanBuffer& buffer = plan.buffers[static_cast<size_t>(b)];
      // No write of b before a read of the input: any offset is safe.
      const int64_t limit = compute_row_loop_overlap_limit(plan, loop, input, b).value_or(std::numeric_limits<int64_t>::max());
      const int64_t offset = round_down(std::min(top - buffer.bytes, limit), std::max(alignment, buffer.alignment));
      const int64_t shared = std::min(input_bytes, offset + buffer.bytes) - std::max<int64_t>(0, offset);
      if (shared <= 0) continue;
      declared.push_back(LoopOverlap{input, b, offset});
      placed.insert(b);
      top = offset;
      result.shared_bytes += shared;
    }
    if (declared.empty()) continue;
    ++result.overlaps;
    Loop& changed = std::get<Loop>(plan.steps[s].what);
    changed.overlaps.insert(changed.overlaps.end(), declared.begin(), declared.end());
  }
  if (result.overlaps > 0) {
    result.note = std::to_string(result.overlaps) + " row loop" + (result.overlaps == 1 ? "" : "s") +
                  " keep row buffers in their consumed input (" + std::to_string(result.shared_bytes) +
                  " bytes shared)";
  }
  result.plan = std::move(plan);
  return result;
}

}  // namespace tinyfit::plan
