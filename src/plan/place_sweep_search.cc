#include "plan/place_sweep_search.h"

#include <algorithm>
#include <string>
#include <vector>

#include "plan/place_greedy_by_size.h"
#include "plan/place_sequentially.h"

namespace tinyfit::plan {
namespace {

struct BlockedRange {
  int64_t begin = 0;
  int64_t end = 0;
};

int64_t align_down(int64_t value, int64_t alignment) { return value / alignment * alignment; }

enum class SweepOutcome { kPlaced, kExhausted, kNodeCap, kDeadline };

// The search over one instance: `sequence` the non-empty buffers in sweep
// order, `earlier[k]` the positions in it before k whose lifetimes overlap
// sequence[k]'s.
class SweepSearch {
 public:
  SweepSearch(std::span<const PlacementBuffer> buffers, int64_t target)
      : buffers_(buffers), target_(target), offsets_(buffers.size(), 0) {
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (buffers[i].bytes > 0) sequence_.push_back(i);
    }
    std::sort(sequence_.begin(), sequence_.end(), [&](size_t a, size_t b) {
      const PlacementBuffer& x = buffers[a];
      const PlacementBuffer& y = buffers[b];
      if (x.first_step != y.first_step) return x.first_step < y.first_step;
      if (x.bytes != y.bytes) return x.bytes > y.bytes;
      return x.id < y.id;
    });
    std::vector<size_t> position(buffers.size(), 0);
    for (size_t k = 0; k < sequence_.size(); ++k) position[sequence_[k]] = k;
    const std::vector<std::vector<int>> conflicts = list_lifetime_conflicts(buffers);
    earlier_.resize(sequence_.size());
    for (size_t k = 0; k < sequence_.size(); ++k) {
      for (int j : conflicts[sequence_[k]]) {
        if (position[static_cast<size_t>(j)] < k) earlier_[k].push_back(position[static_cast<size_t>(j)]);
      }
    }
  }

  // Depth-first over the candidates, within `max_nodes` placements and the
  // deadline. Backjumping (graph-based, Dechter): a buffer's candidates
  // depend only on the offsets of the earlier buffers it overlaps in time, so
  // when it has none left the search goes back to the latest of those (and
  // of the ones that buffer's failed successors passed up to it), not to the
  // buffer just before, which often lies elsewhere in the network.
  SweepOutcome run(int64_t max_nodes, const Deadline& deadline) {
    const size_t n = sequence_.size();
    if (n == 0) return SweepOutcome::kPlaced;
    std::vector<std::vector<int64_t>> candidates(n);
    std::vector<size_t> next(n, 0);
    std::vector<std::vector<size_t>> passed_up(n);  // per depth: earlier depths blamed by failures below it
    list_candidates(0, candidates[0]);
    size_t depth = 0;
    std::vector<size_t> blame;
    for (int64_t nodes = 0;; ++nodes) {
      if (next[depth] == candidates[depth].size()) {  // exhausted: jump to the latest buffer to blame
        blame = earlier_[depth];
        blame.insert(blame.end(), passed_up[depth].begin(), passed_up[depth].end());
        if (blame.empty()) return SweepOutcome::kExhausted;
        const size_t to = *std::max_element(blame.begin(), blame.end());
        for (size_t k : blame) {
          if (k != to) passed_up[to].push_back(k);
        }
        std::sort(passed_up[to].begin(), passed_up[to].end());
        passed_up[to].erase(std::unique(passed_up[to].begin(), passed_up[to].end()), passed_up[to].end());
        depth = to;
        continue;
      }
      if (nodes >= max_nodes) return SweepOutcome::kNodeCap;
      if ((nodes & 1023) == 0 && deadline.expired()) return SweepOutcome::kDeadline;
      offsets_[sequence_[depth]] = candidates[depth][next[depth]++];
      if (++depth == n) return SweepOutcome::kPlaced;
      list_candidates(depth, candidates[depth]);
      next[depth] = 0;
      passed_up[depth].clear();
    }
  }

  const std::vector<int64_t>& offsets() const { return offsets_; }

 private:
  // The offsets tried for the buffer at `depth`, ascending: on the bottom, on
  // a placed buffer, from the target or from a placed buffer, each aligned
  // and free of every placed buffer it overlaps in time.
  void list_candidates(size_t depth, std::vector<int64_t>& out) {
    const PlacementBuffer& buffer = buffers_[sequence_[depth]];
    blocked_.clear();
    for (size_t k : earlier_[depth]) {
      const size_t j = sequence_[k];
      blocked_.push_back({offsets_[j], offsets_[j] + buffers_[j].bytes});
    }
    std::sort(blocked_.begin(), blocked_.end(),
              [](const BlockedRange& a, const BlockedRange& b) { return a.begin < b.begin; });
    out.clear();
    auto consider = [&](int64_t offset) {
      if (offset < 0 || offset + buffer.bytes > target_) return;
      out.push_back(offset);
    };
    consider(0);
    consider(align_down(target_ - buffer.bytes, buffer.alignment));
    for (const BlockedRange& r : blocked_) {
      consider(align_up(r.end, buffer.alignment));
      consider(align_down(r.begin - buffer.bytes, buffer.alignment));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    out.erase(std::remove_if(out.begin(), out.end(), [&](int64_t offset) { return collides(offset, buffer.bytes); }),
              out.end());
  }

  // Whether [offset, offset + bytes) meets a blocked interval (sorted by begin).
  bool collides(int64_t offset, int64_t bytes) const {
    // The first interval beginning at or after the end cannot collide; check those before it.
    auto it = std::lower_bound(blocked_.begin(), blocked_.end(), offset + bytes,
                               [](const BlockedRange& r, int64_t value) { return r.begin < value; });
    for (auto r = blocked_.begin(); r != it; ++r) {
      if (r->end > offset) return true;
    }
    return false;
  }

  std::span<const PlacementBuffer> buffers_;
  int64_t target_;
  std::vector<int64_t> offsets_;
  std::vector<size_t> sequence_;
  std::vector<std::vector<size_t>> earlier_;
  std::vector<BlockedRange> blocked_;
};

bool declares_overlaps(std::span<const PlacementBuffer> buffers) {
  return std::any_of(buffers.begin(), buffers.end(),
                     [](const PlacementBuffer& b) { return b.may_overlap_with >= 0 || b.anchor >= 0; });
}

}  // namespace

Placement place_sweep_search(std::span<const PlacementBuffer> buffers, const PlacementOptions& options) {
  return place_sweep_search_from(buffers, place_greedy_by_size(buffers, options), options);
}

Placement place_sweep_search_from(std::span<const PlacementBuffer> buffers, Placement fallback,
                                  const PlacementOptions& options) {
  const int64_t target = compute_live_peak_bytes(buffers);
  auto fall_back = [&](const std::string& why) {
    fallback.note = "sweep-search: " + why + "; kept " + fallback.algorithm;
    return fallback;
  };
  if (fallback.arena_bytes <= target) {  // nothing to search for: already optimal
    fallback.proven_optimal = true;
    return fallback;
  }
  if (declares_overlaps(buffers)) return fall_back("declared overlaps are left to the other algorithms");
  SweepSearch search(buffers, target);
  const std::string missed = "no placement at the live peak " + std::to_string(target);
  switch (search.run(kSweepSearchMaxNodes, options.deadline)) {
    case SweepOutcome::kPlaced:
      break;
    case SweepOutcome::kExhausted:
      return fall_back(missed + " among the offsets it tries (not a proof that none exists)");
    case SweepOutcome::kNodeCap:
      return fall_back(missed + " within " + std::to_string(kSweepSearchMaxNodes) + " nodes");
    case SweepOutcome::kDeadline:
      return fall_back(missed + " before the time limit");
  }
  Placement placement;
  placement.algorithm = "sweep-search";
  placement.offsets = search.offsets();
  for (size_t i = 0; i < buffers.size(); ++i) {
    placement.arena_bytes = std::max(placement.arena_bytes, placement.offsets[i] + buffers[i].bytes);
  }
  placement.proven_optimal = placement.arena_bytes <= target;
  return placement;
}

}  // namespace tinyfit::plan
