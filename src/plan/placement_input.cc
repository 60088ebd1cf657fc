#include "plan/placement_input.h"

#include "support/diag.h"

namespace tinyfit::plan {

std::vector<PlacementBuffer> build_placement_buffers(const analysis::BufferGraph& bg,
                                                     const analysis::MemoryProfile& profile,
                                                     const analysis::Order& order, int64_t alignment) {
  TINYFIT_CHECK(profile.lifetimes.size() == bg.buffers.size() && order.size() == profile.steps.size())
      << "profile of another graph or order";
  TINYFIT_CHECK(alignment >= 1) << "alignment " << alignment;
  std::vector<PlacementBuffer> records;
  records.reserve(bg.buffers.size() + order.size());
  for (size_t b = 0; b < bg.buffers.size(); ++b) {
    const analysis::Lifetime& life = profile.lifetimes[b];
    records.push_back({static_cast<int>(b), bg.buffers[b].bytes, alignment, life.first_step, life.last_step, -1});
  }
  for (size_t s = 0; s < order.size(); ++s) {
    const int64_t bytes = bg.operators.at(static_cast<size_t>(order[s])).workspace_bytes;
    if (bytes <= 0) continue;
    const int step = static_cast<int>(s);
    records.push_back({workspace_buffer_id(bg, step), bytes, alignment, step, step, -1});
  }
  return records;
}

double compute_fragmentation(int64_t arena_bytes, int64_t peak_bytes) {
  if (peak_bytes <= 0) return 1.0;
  return static_cast<double>(arena_bytes) / static_cast<double>(peak_bytes);
}

}  // namespace tinyfit::plan
