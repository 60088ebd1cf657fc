#include "schedule/order_hierarchical.h"

#include "schedule/memory_greedy.h"
#include "schedule/order_rpo.h"
#include "schedule/sequential_cuts.h"
#include "support/diag.h"

namespace tinyfit::schedule {

Order order_hierarchical(const analysis::BufferGraph& bg) {
  const Order given = analysis::given_order(bg);
  TINYFIT_CHECK(analysis::is_topological_order(bg, given)) << "the given operator order is not topological";
  const SequentialSegments segs = split_at_sequential_cuts(bg);
  const std::vector<Order> given_parts = split_order_by_segment(segs, given);
  const std::vector<Order> rpo_parts = split_order_by_segment(segs, order_rpo(bg));

  Order order;
  order.reserve(bg.operators.size());
  for (size_t s = 0; s < segs.ops.size(); ++s) {
    if (segs.ops[s].size() == 1) {  // a lone cut: nothing to choose
      append_segment_order(segs, static_cast<int>(s), given_parts[s], order);
      continue;
    }
    const analysis::BufferGraph local = extract_segment_graph(bg, segs, static_cast<int>(s));
    const Order candidates[] = {
        given_parts[s],
        rpo_parts[s],
        order_memory_greedy(local, GreedyUnit::kChain, GreedyKey::kLeastLiveAfter),
        order_memory_greedy(local, GreedyUnit::kOperator, GreedyKey::kLeastLiveAfter),
        order_memory_greedy(local, GreedyUnit::kChain, GreedyKey::kLowestPeak),
        order_memory_greedy(local, GreedyUnit::kOperator, GreedyKey::kLowestPeak),
    };
    const Order* best = nullptr;
    int64_t best_peak = 0;
    for (const Order& candidate : candidates) {
      const int64_t peak = analysis::compute_memory_profile(local, candidate).peak_bytes;
      if (best == nullptr || peak < best_peak) {
        best = &candidate;
        best_peak = peak;
      }
    }
    append_segment_order(segs, static_cast<int>(s), *best, order);
  }
  // Per segment never worse, so never worse overall; the comparison is cheap
  // insurance for the guarantee in the header.
  if (analysis::compute_memory_profile(bg, order).peak_bytes > analysis::compute_memory_profile(bg, given).peak_bytes) {
    return given;
  }
  return order;
}

}  // namespace tinyfit::schedule
