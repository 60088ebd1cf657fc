#include "devices/order_block_moves.h"

namespace tinyfit::devices {
namespace {

// Whether `move`'s destination shares a byte with `source`'s source.
bool lands_on(const BlockMove& move, const BlockMove& source) {
  return move.to_offset < source.from_offset + source.bytes && source.from_offset < move.to_offset + move.bytes;
}

}  // namespace

std::optional<std::vector<int>> order_block_moves(const std::vector<BlockMove>& moves) {
  const size_t n = moves.size();
  std::vector<int> waiting(n, 0);  // moves that must read before this one writes
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i != j && lands_on(moves[j], moves[i])) ++waiting[j];
    }
  }
  std::vector<int> order;
  std::vector<bool> done(n, false);
  while (order.size() < n) {
    size_t next = n;
    for (size_t i = 0; i < n && next == n; ++i) {
      if (!done[i] && waiting[i] == 0) next = i;
    }
    if (next == n) return std::nullopt;
    done[next] = true;
    for (size_t j = 0; j < n; ++j) {
      if (j != next && lands_on(moves[j], moves[next])) --waiting[j];
    }
    order.push_back(static_cast<int>(next));
  }
  return order;
}

}  // namespace tinyfit::devices
