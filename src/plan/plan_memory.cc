#include "plan/plan_memory.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "plan/declared_overlaps.h"
#include "plan/verify_placement.h"

namespace tinyfit::plan {
namespace {

// One use of a buffer: the position and the loops around it (indices into
// PlanMemory::loops, outermost first).
struct BufferUse {
  int position = 0;
  std::vector<int> loops;
};

class LifetimeBuilder {
 public:
  explicit LifetimeBuilder(const Plan& plan) : plan_(plan), uses_(plan.buffers.size()) {}

  void walk(const std::vector<Step>& steps, PlanMemory& memory, int top_step, std::vector<int>& body_path) {
    for (size_t i = 0; i < steps.size(); ++i) {
      const int step = top_step >= 0 ? top_step : static_cast<int>(i);
      if (top_step >= 0) body_path.push_back(static_cast<int>(i));
      if (!steps[i].is_loop()) {
        const int position = static_cast<int>(memory.positions.size());
        memory.positions.push_back({step, body_path});
        steps[i].call().for_each_buffer([&](BufferId b) {
          TINYFIT_CHECK(b >= 0 && static_cast<size_t>(b) < uses_.size()) << "view of buffer " << b;
          uses_[static_cast<size_t>(b)].push_back({position, open_loops_});
        });
      } else {
        const int loop = static_cast<int>(memory.loops.size());
        memory.loops.push_back({&steps[i].loop(), static_cast<int>(open_loops_.size()),
                                static_cast<int>(memory.positions.size()), 0});
        open_loops_.push_back(loop);
        walk(steps[i].loop().body, memory, step, body_path);
        open_loops_.pop_back();
        memory.loops[static_cast<size_t>(loop)].last_position = static_cast<int>(memory.positions.size()) - 1;
      }
      if (top_step >= 0) body_path.pop_back();
    }
  }

  // [first, last] positions of buffer b per the rules in plan_memory.h;
  // {max, -1} when no call uses it.
  std::pair<int, int> compute_lifetime(BufferId b, const std::vector<LoopSpan>& loops) const {
    const std::vector<BufferUse>& uses = uses_[static_cast<size_t>(b)];
    int first = std::numeric_limits<int>::max(), last = -1;
    if (uses.empty()) return {first, last};
    // Loops around every use: the home loop of a partial buffer is the last.
    size_t home_depth = 0;
    const BufferRole role = plan_.buffers[static_cast<size_t>(b)].role;
    if (role == BufferRole::kWorkspace) {
      home_depth = std::numeric_limits<size_t>::max();  // scratch of its call: live at the call only
    } else if (role == BufferRole::kPartial) {
      home_depth = uses.front().loops.size();
      for (const BufferUse& use : uses) {
        size_t common = 0;
        while (common < home_depth && common < use.loops.size() && use.loops[common] == uses.front().loops[common]) {
          ++common;
        }
        home_depth = common;
      }
    }
    for (const BufferUse& use : uses) {
      int from = use.position, to = use.position;
      if (use.loops.size() > home_depth) {
        const LoopSpan& span = loops[static_cast<size_t>(use.loops[home_depth])];
        from = span.first_position;
        to = span.last_position;
      }
      first = std::min(first, from);
      last = std::max(last, to);
    }
    return {first, last};
  }

 private:
  const Plan& plan_;
  std::vector<std::vector<BufferUse>> uses_;
  std::vector<int> open_loops_;
};

}  // namespace

const KernelCall& call_at(const Plan& plan, const PlanPosition& position) {
  const Step* step = &plan.steps.at(static_cast<size_t>(position.step));
  for (int index : position.body_path) step = &step->loop().body.at(static_cast<size_t>(index));
  return step->call();
}

PlanMemory compute_plan_memory(const Plan& plan) {
  PlanMemory memory;
  LifetimeBuilder builder(plan);
  std::vector<int> body_path;
  builder.walk(plan.steps, memory, -1, body_path);

  const int last_position = std::max(0, static_cast<int>(memory.positions.size()) - 1);
  const size_t n = plan.buffers.size();
  std::vector<std::pair<int, int>> lifetimes(n);
  for (size_t b = 0; b < n; ++b) lifetimes[b] = builder.compute_lifetime(static_cast<BufferId>(b), memory.loops);
  for (BufferId b : plan.inputs) {
    TINYFIT_CHECK(b >= 0 && static_cast<size_t>(b) < n) << "input buffer " << b;
    lifetimes[static_cast<size_t>(b)] = {0, std::max(lifetimes[static_cast<size_t>(b)].second, 0)};
  }
  for (BufferId b : plan.outputs) {
    TINYFIT_CHECK(b >= 0 && static_cast<size_t>(b) < n) << "output buffer " << b;
    auto& [first, last] = lifetimes[static_cast<size_t>(b)];
    first = std::min(first, last_position);
    last = last_position;
  }
  memory.buffers.reserve(n);
  for (size_t b = 0; b < n; ++b) {
    const auto [first, last] = lifetimes[b];
    PlacementBuffer record;
    record.id = static_cast<int>(b);
    record.bytes = plan.buffers[b].bytes;
    record.alignment = plan.buffers[b].alignment;
    record.first_step = last < 0 ? 0 : first;  // a buffer no call uses: position 0 only
    record.last_step = last < 0 ? 0 : last;
    memory.buffers.push_back(record);
  }

  memory.live_bytes.assign(static_cast<size_t>(last_position) + 1, 0);
  for (const PlacementBuffer& record : memory.buffers) {
    for (int p = record.first_step; p <= record.last_step; ++p) {
      memory.live_bytes[static_cast<size_t>(p)] += record.bytes;
    }
  }
  apply_declared_overlaps(plan, memory.buffers, memory.live_bytes);
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
