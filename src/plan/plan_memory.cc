#include "plan/plan_memory.h"

#include <algorithm>
#include <limits>

#include "plan/verify_placement.h"

namespace tinyfit::plan {
namespace {

template <typename Visit>
void visit_buffers(const KernelCall& call, Visit&& visit) {
  for (const View& view : call.inputs) visit(view.buffer);
  for (const View& view : call.outputs) visit(view.buffer);
  if (call.workspace >= 0) visit(call.workspace);
}

}  // namespace

const KernelCall& call_at(const Plan& plan, PlanPosition position) {
  const Step& step = plan.steps.at(static_cast<size_t>(position.step));
  if (position.body_index < 0) return step.call();
  return step.loop().body.at(static_cast<size_t>(position.body_index));
}

PlanMemory compute_plan_memory(const Plan& plan) {
  PlanMemory memory;
  const size_t n = plan.buffers.size();
  constexpr int kUnused = std::numeric_limits<int>::max();
  std::vector<int> first(n, kUnused), last(n, -1);
  auto use = [&](BufferId b, int from, int to) {
    TINYFIT_CHECK(b >= 0 && static_cast<size_t>(b) < n) << "view of buffer " << b;
    first[static_cast<size_t>(b)] = std::min(first[static_cast<size_t>(b)], from);
    last[static_cast<size_t>(b)] = std::max(last[static_cast<size_t>(b)], to);
  };

  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const Step& step = plan.steps[s];
    const int begin = static_cast<int>(memory.positions.size());
    if (!step.is_loop()) {
      memory.positions.push_back({static_cast<int>(s), -1});
      visit_buffers(step.call(), [&](BufferId b) { use(b, begin, begin); });
      continue;
    }
    const Loop& loop = step.loop();
    const int end = begin + static_cast<int>(loop.body.size()) - 1;
    for (size_t i = 0; i < loop.body.size(); ++i) {
      const int position = static_cast<int>(memory.positions.size());
      memory.positions.push_back({static_cast<int>(s), static_cast<int>(i)});
      visit_buffers(loop.body[i], [&](BufferId b) {
        if (plan.buffers[static_cast<size_t>(b)].role == BufferRole::kPartial) {
          use(b, position, position);
        } else {
          use(b, begin, end);  // loop context: every iteration touches it
        }
      });
    }
  }

  const int last_position = std::max(0, static_cast<int>(memory.positions.size()) - 1);
  for (BufferId b : plan.inputs) use(b, 0, 0);
  for (BufferId b : plan.outputs) use(b, last_position, last_position);
  memory.buffers.reserve(n);
  for (size_t b = 0; b < n; ++b) {
    PlacementBuffer record;
    record.id = static_cast<int>(b);
    record.bytes = plan.buffers[b].bytes;
    record.alignment = plan.buffers[b].alignment;
    record.first_step = first[b] == kUnused ? 0 : first[b];
    record.last_step = last[b] < 0 ? 0 : last[b];
    memory.buffers.push_back(record);
  }
  for (BufferId b : plan.inputs) memory.buffers[static_cast<size_t>(b)].first_step = 0;
  for (BufferId b : plan.outputs) memory.buffers[static_cast<size_t>(b)].last_step = last_position;

  memory.live_bytes.assign(static_cast<size_t>(last_position) + 1, 0);
  for (const PlacementBuffer& record : memory.buffers) {
    for (int p = record.first_step; p <= record.last_step; ++p) {
      memory.live_bytes[static_cast<size_t>(p)] += record.bytes;
    }
  }
  for (size_t p = 0; p < memory.live_bytes.size(); ++p) {
    if (memory.live_bytes[p] > memory.peak_bytes) {
      memory.peak_bytes = memory.live_bytes[p];
      memory.peak_position = static_cast<int>(p);
    }
  }
  return memory;
}

std::vector<BufferId> live_buffers_at(const PlanMemory& memory, int position) {
  std::vector<BufferId> live;
  for (const PlacementBuffer& record : memory.buffers) {
    if (record.bytes > 0 && record.first_step <= position && position <= record.last_step) {
      live.push_back(record.id);
    }
  }
  std::sort(live.begin(), live.end(), [&](BufferId a, BufferId b) {
    const int64_t ba = memory.buffers[static_cast<size_t>(a)].bytes;
    const int64_t bb = memory.buffers[static_cast<size_t>(b)].bytes;
    return ba != bb ? ba > bb : a < b;
  });
  return live;
}

Result<Placement> place_plan(Plan& plan, std::string_view algorithm, const PlacementOptions& options) {
  const PlacementAlgorithm* found = find_placement_algorithm(algorithm);
  TINYFIT_CHECK(found != nullptr) << "unknown placement algorithm '" << algorithm << "'";
  const PlanMemory memory = compute_plan_memory(plan);
  Placement placement = found->place(memory.buffers, options);
  TINYFIT_RETURN_IF_ERROR(verify_placement(memory.buffers, placement));
  for (size_t b = 0; b < plan.buffers.size(); ++b) plan.buffers[b].offset = placement.offsets[b];
  plan.arena_bytes = placement.arena_bytes;
  return placement;
}

}  // namespace tinyfit::plan
