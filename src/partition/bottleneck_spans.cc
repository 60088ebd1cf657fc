#include "partition/bottleneck_spans.h"

#include <algorithm>
#include <set>
#include <utility>

namespace tinyfit::partition {

std::vector<Stretch> list_bottleneck_spans(const analysis::BufferGraph& bg, const std::vector<Cell>& cells,
                                           const std::vector<int>& bottleneck_buffers, int extra_cells) {
  std::vector<int> cell_of_op(bg.operators.size(), -1);
  for (size_t c = 0; c < cells.size(); ++c) {
    for (int op : cells[c].operators) cell_of_op[static_cast<size_t>(op)] = static_cast<int>(c);
  }
  // Per bottleneck tensor, the cells from its producer's to its last reader's.
  std::set<std::pair<int, int>> spans;
  int union_first = -1, union_last = -1;
  for (int b : bottleneck_buffers) {
    const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
    if (buffer.consumers.empty()) continue;
    int first = buffer.producer >= 0 ? cell_of_op[static_cast<size_t>(buffer.producer)]
                                     : cell_of_op[static_cast<size_t>(buffer.consumers.front())];
    int last = first;
    for (int reader : buffer.consumers) {
      first = std::min(first, cell_of_op[static_cast<size_t>(reader)]);
      last = std::max(last, cell_of_op[static_cast<size_t>(reader)]);
    }
    spans.insert({first, last});
    union_first = union_first < 0 ? first : std::min(union_first, first);
    union_last = std::max(union_last, last);
  }
  if (union_first >= 0) spans.insert({union_first, union_last});
  const int last_cell = static_cast<int>(cells.size()) - 1;
  std::set<std::pair<int, int>> stretches;
  for (const auto& [first, last] : spans) {
    for (int back = 0; back <= 1; ++back) {
      for (int on = 0; on <= extra_cells; ++on) {
        const int from = std::max(first - back, 0);
        const int to = std::min(last + on, last_cell);
        if (from == to) continue;  // one cell: the beam's own candidates
        stretches.insert(
            {cells[static_cast<size_t>(from)].operators.front(), cells[static_cast<size_t>(to)].operators.back()});
      }
    }
  }
  std::vector<Stretch> result;
  for (const auto& [first, last] : stretches) result.push_back({first, last});
  return result;
}

}  // namespace tinyfit::partition
