#include "plan/place_greedy_by_conflicts.h"

#include <algorithm>
#include <numeric>

#include "plan/place_sequentially.h"

namespace tinyfit::plan {

Placement place_greedy_by_conflicts(std::span<const PlacementBuffer> buffers, const PlacementOptions&) {
  const size_t n = buffers.size();
  const std::vector<std::vector<int>> conflicts = list_lifetime_conflicts(buffers);
  std::vector<int64_t> conflict_bytes(n, 0);
  std::vector<int> conflict_count(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (int j : conflicts[i]) conflict_bytes[i] += buffers[static_cast<size_t>(j)].bytes;
    conflict_count[i] = static_cast<int>(conflicts[i].size());
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const size_t x = static_cast<size_t>(a);
    const size_t y = static_cast<size_t>(b);
    // Own bytes count too: a big buffer with few neighbours still pins the arena.
    const int64_t load_x = conflict_bytes[x] + buffers[x].bytes;
    const int64_t load_y = conflict_bytes[y] + buffers[y].bytes;
    if (load_x != load_y) return load_x > load_y;
    if (conflict_count[x] != conflict_count[y]) return conflict_count[x] > conflict_count[y];
    if (buffers[x].bytes != buffers[y].bytes) return buffers[x].bytes > buffers[y].bytes;
    return buffers[x].id < buffers[y].id;
  });
  return place_sequentially(buffers, conflicts, order, GapPolicy::kFirstFit, "greedy-by-conflicts");
}

}  // namespace tinyfit::plan
