#include "schedule/order_rpo.h"

#include <algorithm>
#include <utility>

#include "support/diag.h"

namespace tinyfit::schedule {
namespace {

// Producer operators of each operator, ascending and unique (the DFS tie-break).
std::vector<std::vector<int>> list_producer_ops(const analysis::BufferGraph& bg) {
  std::vector<std::vector<int>> producers(bg.operators.size());
  for (size_t v = 0; v < bg.operators.size(); ++v) {
    for (int b : bg.operators[v].inputs) {
      const int p = bg.buffers.at(static_cast<size_t>(b)).producer;
      if (p >= 0) producers[v].push_back(p);
    }
    std::sort(producers[v].begin(), producers[v].end());
    producers[v].erase(std::unique(producers[v].begin(), producers[v].end()), producers[v].end());
  }
  return producers;
}

}  // namespace

Order order_rpo(const analysis::BufferGraph& bg) {
  const size_t n = bg.operators.size();
  const std::vector<std::vector<int>> producers = list_producer_ops(bg);

  // Roots: producers of model outputs first (the outputs are what the walk
  // serves), then dead-end operators, then everything (a safety net that only
  // matters for malformed graphs; it keeps the result a permutation).
  std::vector<int> roots;
  for (const analysis::Buffer& buffer : bg.buffers) {
    if (buffer.is_model_output && buffer.producer >= 0) roots.push_back(buffer.producer);
  }
  std::vector<bool> has_consumer(n, false);
  for (size_t v = 0; v < n; ++v) {
    for (int p : producers[v]) has_consumer[static_cast<size_t>(p)] = true;
  }
  for (size_t v = 0; v < n; ++v) {
    if (!has_consumer[v]) roots.push_back(static_cast<int>(v));
  }
  for (size_t v = 0; v < n; ++v) roots.push_back(static_cast<int>(v));

  Order order;
  order.reserve(n);
  std::vector<bool> visited(n, false);
  // (operator, index of the next producer to visit)
  std::vector<std::pair<int, size_t>> stack;
  for (int root : roots) {
    if (visited[static_cast<size_t>(root)]) continue;
    visited[static_cast<size_t>(root)] = true;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [op, next] = stack.back();
      const std::vector<int>& preds = producers[static_cast<size_t>(op)];
      if (next < preds.size()) {
        const int p = preds[next++];
        if (!visited[static_cast<size_t>(p)]) {
          visited[static_cast<size_t>(p)] = true;
          stack.emplace_back(p, 0);  // invalidates `op`/`next`; not used below
        }
      } else {
        order.push_back(op);
        stack.pop_back();
      }
    }
  }
  TINYFIT_CHECK(order.size() == n) << "rpo covered " << order.size() << " of " << n << " operators";
  return order;
}

}  // namespace tinyfit::schedule
