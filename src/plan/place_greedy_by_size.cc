#include "plan/place_greedy_by_size.h"

#include <algorithm>
#include <numeric>

#include "plan/place_sequentially.h"

namespace tinyfit::plan {

Placement place_greedy_by_size(std::span<const PlacementBuffer> buffers, const PlacementOptions&) {
  std::vector<int> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const PlacementBuffer& x = buffers[static_cast<size_t>(a)];
    const PlacementBuffer& y = buffers[static_cast<size_t>(b)];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    if (x.first_step != y.first_step) return x.first_step < y.first_step;
    return x.id < y.id;
  });
  return place_sequentially(buffers, order, GapPolicy::kFirstFit, "greedy-by-size");
}

}  // namespace tinyfit::plan
