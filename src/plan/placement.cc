#include "plan/placement.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "plan/place_best.h"
#include "plan/place_best_fit.h"
#include "plan/place_exact.h"
#include "plan/place_greedy_by_conflicts.h"
#include "plan/place_greedy_by_size.h"
#include "plan/place_hill_climb.h"
#include "plan/place_sweep_search.h"

namespace tinyfit::plan {

std::span<const PlacementAlgorithm> list_placement_algorithms() {
  static constexpr std::array<PlacementAlgorithm, 7> kAlgorithms{{
      {"greedy-by-size", place_greedy_by_size},
      {"greedy-by-conflicts", place_greedy_by_conflicts},
      {"best-fit", place_best_fit},
      {"hill-climb", place_hill_climb},
      {"sweep-search", place_sweep_search},
      {"exact", place_exact},
      {"best", place_best},
  }};
  return kAlgorithms;
}

const PlacementAlgorithm* find_placement_algorithm(std::string_view name) {
  for (const PlacementAlgorithm& algorithm : list_placement_algorithms()) {
    if (algorithm.name == name) return &algorithm;
  }
  return nullptr;
}

int64_t count_anchored_shared_bytes(const PlacementBuffer& a, const PlacementBuffer& b) {
  if (a.anchor != b.id && b.anchor != a.id) return 0;
  // The anchored one's bytes start `delta` after the other's.
  const bool a_anchored = a.anchor == b.id;
  const int64_t delta = a_anchored ? a.anchor_offset_bytes : b.anchor_offset_bytes;
  const int64_t base_bytes = a_anchored ? b.bytes : a.bytes;
  const int64_t moved_bytes = a_anchored ? a.bytes : b.bytes;
  return std::max<int64_t>(0, std::min(base_bytes, delta + moved_bytes) - std::max<int64_t>(0, delta));
}

int64_t compute_live_peak_bytes(std::span<const PlacementBuffer> buffers) {
  // Sweep over (step, delta) events; all events of one step apply before the
  // step is measured, and a removal at last_step + 1 sorts with that step.
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(buffers.size() * 2);
  std::unordered_map<int, size_t> index_of_id;
  for (size_t i = 0; i < buffers.size(); ++i) index_of_id.emplace(buffers[i].id, i);
  for (const PlacementBuffer& b : buffers) {
    events.emplace_back(b.first_step, b.bytes);
    events.emplace_back(int64_t{b.last_step} + 1, -b.bytes);
    auto share = [&](const PlacementBuffer& p, int64_t shared) {
      if (!lifetimes_overlap(b, p) || shared <= 0) return;
      events.emplace_back(std::max(b.first_step, p.first_step), -shared);
      events.emplace_back(int64_t{std::min(b.last_step, p.last_step)} + 1, shared);
    };
    if (auto anchor = index_of_id.find(b.anchor); b.anchor >= 0 && anchor != index_of_id.end()) {
      share(buffers[anchor->second], count_anchored_shared_bytes(b, buffers[anchor->second]));
    }
    if (b.may_overlap_with < 0) continue;
    auto partner = index_of_id.find(b.may_overlap_with);
    if (partner == index_of_id.end()) continue;
    const PlacementBuffer& p = buffers[partner->second];
    // A pair declared from both sides still shares its bytes only once.
    if (p.may_overlap_with == b.id && p.id < b.id) continue;
    share(p, std::min(b.bytes, p.bytes));
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0;
  int64_t peak = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    live += events[i].second;
    if (i + 1 == events.size() || events[i + 1].first != events[i].first) peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace tinyfit::plan
