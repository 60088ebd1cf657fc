#include "devices/choose_k1k2.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "devices/split_support.h"

namespace tinyfit::devices {
namespace {

// Bytes of the tensors live at each step of ordinary execution of `order`
// other than the step's own inputs and outputs (M_others).
std::vector<int64_t> count_other_live_bytes(const ir::Graph& graph, const std::vector<ir::NodeId>& order) {
  const int steps = static_cast<int>(order.size());
  std::vector<int> first(graph.tensors.size(), -1), last(graph.tensors.size(), -1);
  for (ir::TensorId t : graph.inputs) first[static_cast<size_t>(t)] = 0;
  for (int s = 0; s < steps; ++s) {
    const ir::Node& node = graph.nodes[static_cast<size_t>(order[static_cast<size_t>(s)])];
    for (ir::TensorId t : node.inputs) {
      if (t != ir::kNoTensor && !graph.tensor(t).is_constant) last[static_cast<size_t>(t)] = s;
    }
    for (ir::TensorId t : node.outputs) first[static_cast<size_t>(t)] = s;
  }
  for (ir::TensorId t : graph.outputs) last[static_cast<size_t>(t)] = steps - 1;
  std::vector<int64_t> others(static_cast<size_t>(steps), 0);
  for (int s = 0; s < steps; ++s) {
    const ir::Node& node = graph.nodes[static_cast<size_t>(order[static_cast<size_t>(s)])];
    for (size_t t = 0; t < graph.tensors.size(); ++t) {
      if (first[t] < 0 || first[t] > s || std::max(last[t], first[t]) < s) continue;
      const ir::TensorId id = static_cast<ir::TensorId>(t);
      if (std::find(node.inputs.begin(), node.inputs.end(), id) != node.inputs.end() ||
          std::find(node.outputs.begin(), node.outputs.end(), id) != node.outputs.end()) {
        continue;
      }
      others[static_cast<size_t>(s)] += graph.tensors[t].size_bytes();
    }
  }
  return others;
}

int64_t floor_div_or_max(int64_t num, int64_t den) {
  if (den <= 0) return std::numeric_limits<int64_t>::max();
  if (num < 0) return -1;
  return num / den;
}

OperatorChoice choose_split(const ir::Graph& graph, const ir::Node& node, Split split, int64_t k, int n,
                            const std::vector<DeviceId>& by_size) {
  OperatorChoice choice{static_cast<ir::NodeId>(&node - graph.nodes.data()), Split::kWhole, {by_size[0]}};
  const int parts = static_cast<int>(std::min<int64_t>(k, n));
  if (parts < 2 || !serves_split(graph, node, split, parts)) return choice;
  choice.split = split;
  choice.devices.assign(by_size.begin(), by_size.begin() + parts);
  std::sort(choice.devices.begin(), choice.devices.end());
  return choice;
}

}  // namespace

std::vector<OperatorChoice> choose_by_k1k2(const ir::Graph& graph, const std::vector<ir::NodeId>& order,
                                           const DeviceLimits& limits) {
  const int n = limits.count_devices();
  std::vector<DeviceId> by_size(static_cast<size_t>(n));
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(), [&](DeviceId a, DeviceId b) {
    return limits.sram_bytes[static_cast<size_t>(a)] > limits.sram_bytes[static_cast<size_t>(b)];
  });
  const int64_t full = std::accumulate(limits.sram_bytes.begin(), limits.sram_bytes.end(), int64_t{0});
  const std::vector<int64_t> others = count_other_live_bytes(graph, order);

  std::vector<OperatorChoice> choices;
  for (size_t s = 0; s < order.size(); ++s) {
    const ir::Node& node = graph.nodes[static_cast<size_t>(order[s])];
    if (reads_view_origins(node)) {
      int64_t in = 0, kernel = 0;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if (!graph.has_input(node, i)) continue;
        (graph.input_tensor(node, i).is_constant ? kernel : in) += graph.input_tensor(node, i).size_bytes();
      }
      const int64_t out = graph.output_tensor(node, 0).size_bytes();
      const int64_t k1 = floor_div_or_max(full - others[s] - kernel - out, in);
      const int64_t k2 = floor_div_or_max(full - others[s] - in - out, kernel);
      choices.push_back(k1 < k2 ? choose_split(graph, node, Split::kChannels, k1, n, by_size)
                                : choose_split(graph, node, Split::kRows, k2, n, by_size));
    } else if (node.op == ir::OpType::kFullyConnected) {
      choices.push_back(choose_split(graph, node, Split::kChannels, n, n, by_size));
    } else {
      choices.push_back(choose_split(graph, node, Split::kLength, n, n, by_size));
    }
  }
  return choices;
}

}  // namespace tinyfit::devices
