#include "analysis/memory_profile.h"

#include <algorithm>
#include <numeric>

#include "support/diag.h"

namespace tinyfit::analysis {

MemoryProfile compute_memory_profile(const BufferGraph& bg, const Order& order) {
  const int steps = static_cast<int>(order.size());
  TINYFIT_CHECK(order.size() == bg.operators.size()) << "order covers " << order.size() << " of "
                                                     << bg.operators.size() << " operators";
  std::vector<int> step_of(bg.operators.size(), -1);
  for (int s = 0; s < steps; ++s) step_of.at(static_cast<size_t>(order[static_cast<size_t>(s)])) = s;

  MemoryProfile profile;
  profile.lifetimes.resize(bg.buffers.size());
  profile.steps.resize(static_cast<size_t>(steps));
  // Difference arrays over steps. Execution stage: +bytes at the first step,
  // -bytes after the last. Interval stage (after step s): live when
  // first <= s < last.
  std::vector<int64_t> execution_delta(static_cast<size_t>(steps) + 1, 0);
  std::vector<int64_t> interval_delta(static_cast<size_t>(steps) + 1, 0);
  for (size_t b = 0; b < bg.buffers.size() && steps > 0; ++b) {
    const Buffer& buffer = bg.buffers[b];
    const int first = buffer.producer < 0 ? 0 : step_of.at(static_cast<size_t>(buffer.producer));
    int last = first;
    for (int consumer : buffer.consumers) last = std::max(last, step_of.at(static_cast<size_t>(consumer)));
    if (buffer.is_model_output) last = steps - 1;
    profile.lifetimes[b] = {first, last};
    execution_delta[static_cast<size_t>(first)] += buffer.bytes;
    execution_delta[static_cast<size_t>(last) + 1] -= buffer.bytes;
    interval_delta[static_cast<size_t>(first)] += buffer.bytes;
    interval_delta[static_cast<size_t>(last)] -= buffer.bytes;
  }
  int64_t live = 0;
  int64_t crossing = 0;
  for (int s = 0; s < steps; ++s) {
    live += execution_delta[static_cast<size_t>(s)];
    crossing += interval_delta[static_cast<size_t>(s)];
    const Operator& op = bg.operators[static_cast<size_t>(order[static_cast<size_t>(s)])];
    StepMemory& m = profile.steps[static_cast<size_t>(s)];
    m.execution_bytes = live + op.workspace_bytes;
    m.interval_bytes = crossing;
    if (m.execution_bytes > profile.peak_bytes) {
      profile.peak_bytes = m.execution_bytes;
      profile.peak_step = s;
    }
  }
  return profile;
}

Order given_order(const BufferGraph& bg) {
  Order order(bg.operators.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

bool is_topological_order(const BufferGraph& bg, const Order& order) {
  if (order.size() != bg.operators.size()) return false;
  std::vector<bool> done(bg.operators.size(), false);
  for (int op : order) {
    if (op < 0 || static_cast<size_t>(op) >= bg.operators.size() || done[static_cast<size_t>(op)]) return false;
    for (int b : bg.operators[static_cast<size_t>(op)].inputs) {
      const int producer = bg.buffers[static_cast<size_t>(b)].producer;
      if (producer >= 0 && !done[static_cast<size_t>(producer)]) return false;
    }
    done[static_cast<size_t>(op)] = true;
  }
  return true;
}

std::vector<int> live_buffers_at(const MemoryProfile& profile, const BufferGraph& bg, int step) {
  std::vector<int> live;
  for (size_t b = 0; b < bg.buffers.size(); ++b) {
    const Lifetime& l = profile.lifetimes[b];
    if (l.first_step <= step && step <= l.last_step) live.push_back(static_cast<int>(b));
  }
  std::sort(live.begin(), live.end(), [&](int a, int b) {
    const int64_t ba = bg.buffers[static_cast<size_t>(a)].bytes;
    const int64_t bb = bg.buffers[static_cast<size_t>(b)].bytes;
    return ba != bb ? ba > bb : a < b;
  });
  return live;
}

}  // namespace tinyfit::analysis
