#include "partition/pex_order_schedule.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace tinyfit::partition {

PexSchedule schedule_pex_along_order(const PexGraph& pg, const analysis::Order& order, int max_loop_ops) {
  const size_t n = order.size();
  // done[i]: the first i operators of the order.
  std::vector<OpSet> done(n + 1, OpSet(pg.operators.size()));
  for (size_t i = 0; i < n; ++i) {
    done[i + 1] = done[i];
    done[i + 1].add(order[i]);
  }
  constexpr int64_t kUnreached = std::numeric_limits<int64_t>::max();
  struct Best {
    int64_t peak = kUnreached;
    int loops = 0;
    size_t from = 0;
    PexInstruction via;
  };
  std::vector<Best> best(n + 1);
  best[0].peak = 0;
  auto relax = [&](size_t from, size_t to, PexInstruction via) {
    const int64_t peak = std::max(best[from].peak, via.peak_bytes);
    const int loops = best[from].loops + (via.is_loop ? 1 : 0);
    if (peak < best[to].peak || (peak == best[to].peak && loops < best[to].loops)) {
      best[to] = {peak, loops, from, std::move(via)};
    }
  };
  for (size_t i = 0; i < n; ++i) {
    PexInstruction whole;
    whole.op = order[i];
    whole.peak_bytes = compute_whole_op_peak(pg, done[i], order[i]);
    relax(i, i + 1, std::move(whole));
    std::vector<int> members;
    for (size_t j = i; j < n && static_cast<int>(members.size()) < max_loop_ops; ++j) {
      members.insert(std::upper_bound(members.begin(), members.end(), order[j]), order[j]);
      std::optional<PexLoop> loop = make_loop_if_valid(pg, done[i], members);
      if (!loop) continue;
      PexInstruction step;
      step.is_loop = true;
      step.peak_bytes = compute_loop_peak(pg, done[i], *loop);
      step.loop = std::move(*loop);
      relax(i, j + 1, std::move(step));
    }
  }
  PexSchedule schedule;
  schedule.optimal = false;
  schedule.peak_bytes = best[n].peak == kUnreached ? 0 : best[n].peak;
  for (size_t at = n; at > 0; at = best[at].from) schedule.instructions.push_back(best[at].via);
  std::reverse(schedule.instructions.begin(), schedule.instructions.end());
  return schedule;
}

}  // namespace tinyfit::partition
