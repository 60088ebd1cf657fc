#include "partition/readers_to_sink_rows.h"

#include "partition/partition_scheme.h"
#include "support/diag.h"

namespace tinyfit::partition {

int64_t count_output_rows(const ir::Graph& graph, const analysis::BufferGraph& bg, int op) {
  const ir::Node& node = graph.nodes[static_cast<size_t>(bg.operators[static_cast<size_t>(op)].node)];
  if (node.outputs.size() != 1) return -1;
  const ir::Shape& shape = graph.tensor(node.outputs.front()).shape;
  return shape.size() == 4 ? shape[1] : -1;
}

std::vector<int> add_readers_to_sink_rows(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                          const std::vector<int>& ops,
                                          const std::function<bool(const ir::Node&)>& runs_by_rows) {
  TINYFIT_CHECK(!ops.empty()) << "readers of a loop of no operators";
  auto node_of = [&](int op) -> const ir::Node& {
    return graph.nodes[static_cast<size_t>(bg.operators[static_cast<size_t>(op)].node)];
  };
  auto rows_of = [&](int op) { return count_output_rows(graph, bg, op); };
  const int64_t sink_rows = rows_of(ops.back());
  if (sink_rows < 1) return ops;

  std::vector<bool> in(bg.operators.size(), false);
  for (int op : ops) in[static_cast<size_t>(op)] = true;
  // Forward in the given order (topological): a reader joins when it reads a
  // wide tensor of the loop and nothing made after the loop's start outside it.
  std::vector<int> added;
  for (size_t o = static_cast<size_t>(ops.back()) + 1; o < bg.operators.size(); ++o) {
    bool reads_wide = false, reads_outside = false;
    for (int b : bg.operators[o].inputs) {
      const int producer = bg.buffers[static_cast<size_t>(b)].producer;
      if (producer < ops.front()) continue;  // a model input or made before the loop
      if (!in[static_cast<size_t>(producer)]) {
        reads_outside = true;
      } else if (rows_of(producer) > sink_rows) {
        reads_wide = true;
      }
    }
    const int op = static_cast<int>(o);
    if (!reads_wide || reads_outside || rows_of(op) < sink_rows || !runs_by_rows(node_of(op))) continue;
    in[o] = true;
    added.push_back(op);
  }
  // A wide one no other added operator reads would be a sink of other rows,
  // and what reads a dropped one cannot stay: drop both until none is left.
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (int op : added) {
      if (!in[static_cast<size_t>(op)]) continue;
      bool keep = true;
      for (int b : bg.operators[static_cast<size_t>(op)].inputs) {
        const int producer = bg.buffers[static_cast<size_t>(b)].producer;
        keep = keep && (producer < ops.front() || in[static_cast<size_t>(producer)]);
      }
      if (keep && rows_of(op) > sink_rows) {
        keep = false;
        for (int b : bg.operators[static_cast<size_t>(op)].outputs) {
          for (int reader : bg.buffers[static_cast<size_t>(b)].consumers) {
            keep = keep || (reader > ops.back() && in[static_cast<size_t>(reader)]);
          }
        }
      }
      if (!keep) {
        in[static_cast<size_t>(op)] = false;
        dropped = true;
      }
    }
  }
  std::vector<int> result = ops;
  for (int op : added) {
    if (in[static_cast<size_t>(op)]) result.push_back(op);
  }
  return result;
}

std::vector<int> add_global_pool_reader(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                        const std::vector<int>& ops,
                                        const std::function<bool(const ir::Node&)>& runs_by_rows) {
  const analysis::Operator& sink = bg.operators[static_cast<size_t>(ops.back())];
  if (sink.outputs.size() != 1) return ops;
  const analysis::Buffer& out = bg.buffers[static_cast<size_t>(sink.outputs.front())];
  if (out.is_model_output || out.consumers.size() != 1) return ops;
  const int pool = out.consumers.front();
  const analysis::Operator& reader = bg.operators[static_cast<size_t>(pool)];
  const ir::Node& node = graph.nodes[static_cast<size_t>(reader.node)];
  if (pool <= ops.back() || reader.inputs.size() != 1 || !accumulates_rows(graph, node) || !runs_by_rows(node)) {
    return ops;
  }
  std::vector<int> result = ops;
  result.push_back(pool);
  return result;
}

}  // namespace tinyfit::partition
