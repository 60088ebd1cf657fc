#include "devices/balance_bands.h"

#include <algorithm>
#include <functional>

#include "devices/crop_rows.h"
#include "devices/device_plan.h"

namespace tinyfit::devices {
namespace {

// Whether the bands `a` are better balanced than `b`: the largest smaller,
// or equal and the next largest smaller, and so on (two equal largest bands,
// as a symmetric split has, shrink one move at a time).
bool is_smaller(std::vector<int64_t> a, std::vector<int64_t> b) {
  std::sort(a.begin(), a.end(), std::greater<>());
  std::sort(b.begin(), b.end(), std::greater<>());
  return a < b;
}

class Balancer {
 public:
  Balancer(const ir::Graph& graph, int head_nodes, int parts)
      : graph_(graph), head_nodes_(head_nodes), parts_(parts), boundary_(find_head_boundary(graph, head_nodes)) {}

  Result<std::vector<std::vector<ir::Range>>> balance() {
    const int64_t rows = graph_.tensor(boundary_.front()).shape[kRowAxis];
    const bool same_height = std::all_of(boundary_.begin(), boundary_.end(), [&](ir::TensorId t) {
      return graph_.tensor(t).shape[kRowAxis] == rows;
    });
    // cuts[d] .. cuts[d + 1]: device d's rows.
    std::vector<int64_t> cuts;
    for (int d = 0; d <= parts_; ++d) cuts.push_back(rows * d / parts_);
    if (!same_height) return shares_of(cuts);
    TINYFIT_ASSIGN_OR_RETURN(std::vector<int64_t> cost, input_bytes(cuts));
    for (int64_t step = 0; step < 4 * rows; ++step) {
      const int d = static_cast<int>(std::max_element(cost.begin(), cost.end()) - cost.begin());
      if (cuts[static_cast<size_t>(d) + 1] - cuts[static_cast<size_t>(d)] <= 1) break;
      // Give a row to the neighbour whose band is smaller.
      const bool left = d > 0 && (d + 1 == parts_ || cost[static_cast<size_t>(d) - 1] <= cost[static_cast<size_t>(d) + 1]);
      std::vector<int64_t> moved = cuts;
      if (left) {
        ++moved[static_cast<size_t>(d)];
      } else {
        --moved[static_cast<size_t>(d) + 1];
      }
      TINYFIT_ASSIGN_OR_RETURN(std::vector<int64_t> moved_cost, input_bytes(moved));
      if (!is_smaller(moved_cost, cost)) break;
      cuts = std::move(moved);
      cost = std::move(moved_cost);
    }
    return shares_of(cuts);
  }

 private:
  // Device d's share of every boundary tensor (scaled to its height).
  std::vector<std::vector<ir::Range>> shares_of(const std::vector<int64_t>& cuts) const {
    const int64_t rows = graph_.tensor(boundary_.front()).shape[kRowAxis];
    std::vector<std::vector<ir::Range>> shares(static_cast<size_t>(parts_));
    for (int d = 0; d < parts_; ++d) {
      for (ir::TensorId t : boundary_) {
        const int64_t height = graph_.tensor(t).shape[kRowAxis];
        shares[static_cast<size_t>(d)].push_back(
            height == rows ? ir::Range{cuts[static_cast<size_t>(d)], cuts[static_cast<size_t>(d) + 1]}
                           : split_extent(height, d, parts_));
      }
    }
    return shares;
  }

  // Per device: the bytes of its bands of the model inputs.
  Result<std::vector<int64_t>> input_bytes(const std::vector<int64_t>& cuts) const {
    std::vector<int64_t> bytes;
    for (const std::vector<ir::Range>& shares : shares_of(cuts)) {
      TINYFIT_ASSIGN_OR_RETURN(const std::vector<ir::Range> rows, find_input_rows(graph_, head_nodes_, shares));
      int64_t total = 0;
      for (size_t i = 0; i < rows.size(); ++i) {
        const ir::Tensor& input = graph_.tensor(graph_.inputs[i]);
        total += std::max<int64_t>(0, rows[i].size()) * (input.size_bytes() / input.shape[kRowAxis]);
      }
      bytes.push_back(total);
    }
    return bytes;
  }

  const ir::Graph& graph_;
  int head_nodes_;
  int parts_;
  std::vector<ir::TensorId> boundary_;
};

}  // namespace

Result<std::vector<std::vector<ir::Range>>> balance_row_shares(const ir::Graph& graph, int head_nodes, int parts) {
  return Balancer(graph, head_nodes, parts).balance();
}

}  // namespace tinyfit::devices
