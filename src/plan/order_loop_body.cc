#include "plan/order_loop_body.h"

#include <algorithm>

#include "analysis/memory_profile.h"
#include "schedule/order_hierarchical.h"

namespace tinyfit::plan {

std::vector<int> order_loop_body(const ir::Graph& graph, const analysis::BufferGraph& bg, const std::vector<int>& ops,
                                 const partition::RowGeometry& geometry) {
  // The body's graph: operator i is ops[i]; a buffer per output it makes.
  analysis::BufferGraph body;
  std::vector<int> body_buffer(bg.buffers.size(), -1);
  for (size_t i = 0; i < ops.size(); ++i) {
    const analysis::Operator& op = bg.operators[static_cast<size_t>(ops[i])];
    const ir::Node& node = graph.nodes[static_cast<size_t>(op.node)];
    analysis::Operator made;
    made.name = op.name;
    made.node = op.node;
    for (const int b : op.outputs) {
      analysis::Buffer buffer;
      buffer.producer = static_cast<int>(i);
      buffer.name = bg.buffers[static_cast<size_t>(b)].name;
      for (const ir::TensorId t : node.outputs) {
        if (t == ir::kNoTensor || bg.buffer_of_tensor[static_cast<size_t>(t)] != b) continue;
        const partition::TensorRows* rows = geometry.find(t);
        if (rows != nullptr && rows->holding == partition::RowHolding::kPartial) {
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
  const analysis::Order given = analysis::given_order(body);
  const analysis::Order ordered = schedule::order_hierarchical(body, false);
  if (analysis::compute_memory_profile(body, ordered).peak_bytes >=
      analysis::compute_memory_profile(body, given).peak_bytes) {
    return ops;
  }
  std::vector<int> reordered;
  reordered.reserve(ops.size());
  for (const int i : ordered) reordered.push_back(ops[static_cast<size_t>(i)]);
  return reordered;
}

}  // namespace tinyfit::plan
