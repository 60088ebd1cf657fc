#include "partition/cells.h"

#include <algorithm>

#include "schedule/sequential_cuts.h"

namespace tinyfit::partition {

std::vector<int> count_crossing_buffers(const analysis::BufferGraph& bg) {
  const int n = static_cast<int>(bg.operators.size());
  std::vector<int> delta(static_cast<size_t>(n) + 1, 0);  // difference array over positions
  for (const analysis::Buffer& buffer : bg.buffers) {
    const int first = std::max(buffer.producer, 0);
    const int last_use = buffer.is_model_output ? n : (buffer.consumers.empty() ? -1 : buffer.consumers.back());
    if (last_use <= first) continue;  // dead at the end of its own step
    ++delta[static_cast<size_t>(first)];
    --delta[static_cast<size_t>(last_use)];
  }
  std::vector<int> crossing(static_cast<size_t>(n), 0);
  int live = 0;
  for (int p = 0; p < n; ++p) {
    live += delta[static_cast<size_t>(p)];
    crossing[static_cast<size_t>(p)] = live;
  }
  return crossing;
}

std::vector<Cell> find_cells(const analysis::BufferGraph& bg) {
  const schedule::SequentialSegments segs = schedule::split_at_sequential_cuts(bg, false);
  const std::vector<int> crossing = count_crossing_buffers(bg);
  std::vector<Cell> pieces;
  for (const std::vector<int>& segment : segs.ops) {
    pieces.emplace_back();
    for (int op : segment) {
      pieces.back().operators.push_back(op);
      const bool last = op == segment.back();
      if (!last && crossing[static_cast<size_t>(op)] <= 2 &&
          static_cast<int>(pieces.back().operators.size()) >= kMinCrossingCellOperators) {
        pieces.emplace_back();
      }
    }
  }
  // A chain cell grows until an output forks (a residual's skip starts there):
  // the next cell is the block that reads it twice.
  auto forks = [&bg](int op) {
    const std::vector<int>& outputs = bg.operators[static_cast<size_t>(op)].outputs;
    return std::any_of(outputs.begin(), outputs.end(),
                       [&bg](int b) { return bg.buffers[static_cast<size_t>(b)].consumers.size() > 1; });
  };
  std::vector<Cell> cells;
  bool extend_chain = false;
  for (Cell& piece : pieces) {
    const bool single = piece.operators.size() == 1;
    if (single && extend_chain) {
      cells.back().operators.push_back(piece.operators.front());
    } else {
      cells.push_back(std::move(piece));
    }
    extend_chain = single && !forks(cells.back().operators.back());
  }
  return cells;
}

}  // namespace tinyfit::partition
