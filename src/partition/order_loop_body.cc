#include "partition/order_loop_body.h"

#include <algorithm>

#include "analysis/memory_profile.h"
#include "schedule/order_hierarchical.h"

namespace tinyfit::partition {

LoopBodyOrder order_loop_body(const ir::Graph& graph, const analysis::BufferGraph& bg, const std::vector<int>& ops,
                              const RowGeometry& geometry) {
  // The body's graph: operator i is ops[i]; a buffer per output it makes.
  analysis::BufferGraph body;
  std::vector<int> body_buffer(bg.buffers.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i) {
    const analysis::Operator& op = bg.operators[static_cast<size_t>(ops[i])];
    const ir::Node& node = graph.nodes[static_cast<size_t>(op.node)];
    analysis::Operator made;
    made.name = op.name;
    made.node = op.node;
    made.workspace_bytes = op.workspace_bytes;
    for (const int b : op.outputs) {
      analysis::Buffer buffer;
      buffer.producer = static_cast<int>(i);
      buffer.name = bg.buffers[static_cast<size_t>(b)].name;
      for (const ir::TensorId t : node.outputs) {
        if (t == ir::kNoTensor || bg.buffer_of_tensor[static_cast<size_t>(t)] != b) continue;
        const TensorRows* rows = geometry.find(t);
        if (rows != nullptr && rows->holding == RowHolding::kPartial) {
          buffer.bytes = rows->rows_held * rows->row_bytes;
        }
      }
      body_buffer[static_cast<size_t>(b)] = static_cast<int>(body.buffers.size());
      made.outputs.push_back(static_cast<int>(body.buffers.size()));
      body.buffers.push_back(std::move(buffer));
    }
    body.operators.push_back(std::move(made));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    for (const int b : bg.operators[static_cast<size_t>(ops[i])].inputs) {
      const int local = body_buffer[static_cast<size_t>(b)];
      if (local < 0) continue;  // from before the loop
      body.operators[i].inputs.push_back(local);
      body.buffers[static_cast<size_t>(local)].consumers.push_back(static_cast<int>(i));
    }
  }
  for (analysis::Buffer& buffer : body.buffers) {
    std::sort(buffer.consumers.begin(), buffer.consumers.end());
    buffer.consumers.erase(std::unique(buffer.consumers.begin(), buffer.consumers.end()), buffer.consumers.end());
  }
  const int64_t given_peak = analysis::compute_memory_profile(body, analysis::given_order(body)).peak_bytes;
  const analysis::Order ordered = schedule::order_hierarchical(body, false);
  const int64_t ordered_peak = analysis::compute_memory_profile(body, ordered).peak_bytes;
  if (ordered_peak >= given_peak) return {ops, given_peak};
  LoopBodyOrder result{{}, ordered_peak};
  result.ops.reserve(ops.size());
  for (const int i : ordered) result.ops.push_back(ops[static_cast<size_t>(i)]);
  return result;
}

}  // namespace tinyfit::partition
