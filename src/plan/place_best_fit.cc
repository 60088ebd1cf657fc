#include "plan/place_best_fit.h"

#include <algorithm>
#include <numeric>

#include "plan/place_sequentially.h"

namespace tinyfit::plan {

Placement place_best_fit(std::span<const PlacementBuffer> buffers, const PlacementOptions&) {
  std::vector<int> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const PlacementBuffer& x = buffers[static_cast<size_t>(a)];
    const PlacementBuffer& y = buffers[static_cast<size_t>(b)];
    if (x.first_step != y.first_step) return x.first_step < y.first_step;
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return x.id < y.id;
  });
  return place_sequentially(buffers, order, GapPolicy::kBestFit, "best-fit");
}

}  // namespace tinyfit::plan
