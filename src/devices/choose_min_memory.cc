#include "devices/choose_min_memory.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "devices/part_boxes.h"
#include "devices/split_support.h"

namespace tinyfit::devices {
namespace {

// Bytes of the largest part: its output box plus the input boxes it reads,
// plus, for an input whose producer was split another way, the producer's
// part the device still holds while it receives the box it reads (the two do
// not share one buffer then: build_device_plan.h).
int64_t count_largest_part_bytes(const ir::Graph& graph, const ir::Node& node, Split split, int parts,
                                 const std::vector<Split>& producer_split) {
  int64_t largest = 0;
  for (int p = 0; p < parts; ++p) {
    const Box out = compute_part_box(graph.output_tensor(node, 0).shape, split, p, parts);
    const int64_t element_bytes = ir::dtype_size_bytes(graph.output_tensor(node, 0).dtype);
    int64_t bytes = out.count_elements() * element_bytes;
    const std::vector<Box> inputs = compute_input_boxes(graph, node, out);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].axes.empty()) continue;
      const ir::Tensor& input = graph.input_tensor(node, i);
      const int64_t input_element_bytes = ir::dtype_size_bytes(input.dtype);
      bytes += inputs[i].count_elements() * input_element_bytes;
      const Split before = producer_split[static_cast<size_t>(node.inputs[i])];
      if (before != Split::kWhole && before != split) {
        bytes += compute_part_box(input.shape, before, p, parts).count_elements() * input_element_bytes;
      }
    }
    largest = std::max(largest, bytes);
  }
  return largest;
}

}  // namespace

std::vector<OperatorChoice> choose_min_memory(const ir::Graph& graph, const std::vector<ir::NodeId>& order,
                                              const DeviceLimits& limits) {
  const int n = limits.count_devices();
  std::vector<DeviceId> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  const DeviceId largest = static_cast<DeviceId>(
      std::max_element(limits.sram_bytes.begin(), limits.sram_bytes.end()) - limits.sram_bytes.begin());
  std::vector<Split> producer_split(graph.tensors.size(), Split::kWhole);
  std::vector<OperatorChoice> choices;
  for (ir::NodeId id : order) {
    const ir::Node& node = graph.nodes[static_cast<size_t>(id)];
    OperatorChoice best{id, Split::kWhole, {largest}};
    int64_t best_bytes = std::numeric_limits<int64_t>::max();
    for (Split split : {Split::kRows, Split::kChannels, Split::kLength}) {
      if (!serves_split(graph, node, split, n)) continue;
      const int64_t bytes = count_largest_part_bytes(graph, node, split, n, producer_split);
      if (bytes < best_bytes) {
        best_bytes = bytes;
        best = {id, split, all};
      }
    }
    for (ir::TensorId t : node.outputs) producer_split[static_cast<size_t>(t)] = best.split;
    choices.push_back(std::move(best));
  }
  return choices;
}

}  // namespace tinyfit::devices
