#include "partition/scheme_candidates.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

namespace tinyfit::partition {

std::vector<int> Stretch::operators() const {
  std::vector<int> ops(static_cast<size_t>(last - first + 1));
  std::iota(ops.begin(), ops.end(), first);
  return ops;
}

std::vector<Stretch> list_candidate_stretches(const analysis::BufferGraph& bg, const Cell& cell,
                                              const std::vector<int>& bottleneck_buffers, int ends_per_side) {
  const int cell_first = cell.operators.front();
  const int cell_last = cell.operators.back();
  const std::vector<int> crossing = count_crossing_buffers(bg);
  // A stretch may start after a narrow position (or at the cell's start) and
  // end at one (or at the cell's end).
  std::vector<int> starts{cell_first};
  std::vector<int> ends;
  for (int p = cell_first; p <= cell_last; ++p) {
    if (p == cell_last || crossing[static_cast<size_t>(p)] <= kStretchCutCrossing) {
      ends.push_back(p);
      if (p < cell_last) starts.push_back(p + 1);
    }
  }
  // Also at an operator that reads only tensors from before the cell: what
  // the stretch then leaves outside is made before it whatever crosses there
  // (attention's queries after its keys and values).
  for (int p = cell_first + 1; p <= cell_last; ++p) {
    const std::vector<int>& inputs = bg.operators[static_cast<size_t>(p)].inputs;
    const bool reads_before = !inputs.empty() && std::all_of(inputs.begin(), inputs.end(), [&](int b) {
      return bg.buffers[static_cast<size_t>(b)].producer < cell_first;
    });
    if (reads_before) starts.push_back(p);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::set<int> anchors;  // operators of the cell that make or read a bottleneck tensor
  for (int b : bottleneck_buffers) {
    const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
    if (buffer.producer >= cell_first && buffer.producer <= cell_last) anchors.insert(buffer.producer);
    for (int reader : buffer.consumers) {
      if (reader >= cell_first && reader <= cell_last) anchors.insert(reader);
    }
  }
  std::set<std::pair<int, int>> stretches;
  for (int anchor : anchors) {
    // The nearest starts at or before the anchor and ends at or after it.
    std::vector<int> before, after;
    for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
      if (*it <= anchor && static_cast<int>(before.size()) < ends_per_side) before.push_back(*it);
    }
    for (int e : ends) {
      if (e >= anchor && static_cast<int>(after.size()) < ends_per_side) after.push_back(e);
    }
    if (std::find(before.begin(), before.end(), cell_first) == before.end()) before.push_back(cell_first);
    if (std::find(after.begin(), after.end(), cell_last) == after.end()) after.push_back(cell_last);
    for (int s : before) {
      for (int e : after) stretches.insert({s, e});
    }
  }
  std::vector<Stretch> result;
  for (const auto& [first, last] : stretches) result.push_back({first, last});
  return result;
}

std::vector<int64_t> list_tiles(int64_t extent, int max_tiles) {
  // Distinct part counts n >= 2 and the smallest tile giving each.
  std::vector<std::pair<int64_t, int64_t>> parts_and_tile;  // (n, tile), n descending
  for (int64_t tile = 1; tile < extent; ++tile) {
    const int64_t n = (extent + tile - 1) / tile;
    if (n < 2) break;
    if (parts_and_tile.empty() || parts_and_tile.back().first != n) parts_and_tile.push_back({n, tile});
  }
  if (parts_and_tile.empty() || max_tiles <= 0) return {};
  std::vector<int64_t> tiles;
  const size_t count = parts_and_tile.size();
  if (static_cast<int>(count) <= max_tiles) {
    for (const auto& [n, tile] : parts_and_tile) tiles.push_back(tile);
    return tiles;
  }
  // Evenly on log n: n from the most parts (tile 1) to 2.
  const double log_most = std::log(static_cast<double>(parts_and_tile.front().first));
  const double log_least = std::log(2.0);
  size_t next = 0;
  for (int k = 0; k < max_tiles; ++k) {
    const double target = log_most + (log_least - log_most) * k / (max_tiles - 1);
    while (next + 1 < count && std::log(static_cast<double>(parts_and_tile[next].first)) > target + 1e-9) ++next;
    const int64_t tile = parts_and_tile[next].second;
    if (tiles.empty() || tiles.back() != tile) tiles.push_back(tile);
  }
  return tiles;
}

}  // namespace tinyfit::partition
