#include "devices/order_block_moves.h"

#include <algorithm>
#include <utility>

namespace tinyfit::devices {
namespace {

bool overlap(int64_t a_begin, int64_t a_bytes, int64_t b_begin, int64_t b_bytes) {
  return a_begin < b_begin + b_bytes && b_begin < a_begin + a_bytes;
}

// Whether `move`'s destination shares a byte with `source`'s source.
bool lands_on(const BlockMove& move, const BlockMove& source) {
  return overlap(move.to_offset, move.bytes, source.from_offset, source.bytes);
}

// The first offset in [0, arena_bytes) of `bytes` bytes outside every block
// of `taken` (begin, bytes), or -1.
int64_t find_free(std::vector<std::pair<int64_t, int64_t>> taken, int64_t bytes, int64_t arena_bytes) {
  std::sort(taken.begin(), taken.end());
  int64_t begin = 0;
  for (const auto& [offset, size] : taken) {
    if (offset - begin >= bytes) break;
    begin = std::max(begin, offset + size);
  }
  return begin + bytes <= arena_bytes ? begin : -1;
}

class Scheduler {
 public:
  Scheduler(const std::vector<BlockMove>& moves, int64_t arena_bytes)
      : moves_(moves), arena_bytes_(arena_bytes), waiting_(moves.size(), 0), done_(moves.size(), false) {
    for (size_t i = 0; i < moves_.size(); ++i) {
      for (size_t j = 0; j < moves_.size(); ++j) {
        if (i != j && lands_on(moves_[j], moves_[i])) ++waiting_[j];
      }
    }
  }

  std::optional<std::vector<BlockCopy>> run() {
    for (size_t left = moves_.size(); left > 0; --left) {
      size_t next = ready();
      while (next == moves_.size()) {
        if (!bounce()) return std::nullopt;
        next = ready();
      }
      done_[next] = true;
      release_source(next);
      copies_.push_back({static_cast<int>(next), moves_[next]});
    }
    return std::move(copies_);
  }

 private:
  // The lowest pending move nobody waits to read before it writes, or n.
  size_t ready() const {
    for (size_t i = 0; i < moves_.size(); ++i) {
      if (!done_[i] && waiting_[i] == 0) return i;
    }
    return moves_.size();
  }

  // Move i has read its source: the moves landing on it stop waiting for it.
  void release_source(size_t i) {
    for (size_t j = 0; j < moves_.size(); ++j) {
      if (j != i && !done_[j] && lands_on(moves_[j], moves_[i])) --waiting_[j];
    }
  }

  // Whether a pending move other than i lands on i's source.
  bool awaited(size_t i) const {
    for (size_t j = 0; j < moves_.size(); ++j) {
      if (j != i && !done_[j] && lands_on(moves_[j], moves_[i])) return true;
    }
    return false;
  }

  // Copies the smallest awaited pending move that has room to free bytes and
  // makes them its source; false when none has room.
  bool bounce() {
    std::vector<std::pair<int64_t, int64_t>> taken;
    for (size_t i = 0; i < moves_.size(); ++i) {
      taken.emplace_back(moves_[i].to_offset, moves_[i].bytes);
      if (!done_[i]) taken.emplace_back(moves_[i].from_offset, moves_[i].bytes);
    }
    std::vector<size_t> candidates;
    for (size_t i = 0; i < moves_.size(); ++i) {
      if (!done_[i] && awaited(i)) candidates.push_back(i);
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](size_t a, size_t b) { return moves_[a].bytes < moves_[b].bytes; });
    for (size_t i : candidates) {
      const int64_t free = find_free(taken, moves_[i].bytes, arena_bytes_);
      if (free < 0) continue;
      copies_.push_back({static_cast<int>(i), {moves_[i].from_offset, free, moves_[i].bytes}});
      release_source(i);
      moves_[i].from_offset = free;  // no destination overlaps it: nobody waits on it again
      return true;
    }
    return false;
  }

  std::vector<BlockMove> moves_;  // a bounced move's source is its bounce
  int64_t arena_bytes_;
  std::vector<int> waiting_;  // per move: pending moves that must read before it writes
  std::vector<bool> done_;
  std::vector<BlockCopy> copies_;
};

}  // namespace

std::optional<std::vector<BlockCopy>> order_block_moves(const std::vector<BlockMove>& moves, int64_t arena_bytes) {
  return Scheduler(moves, arena_bytes).run();
}

}  // namespace tinyfit::devices
