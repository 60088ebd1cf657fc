#include "partition/split_input_readers.h"

#include <algorithm>

#include "partition/readers_to_sink_rows.h"
#include "support/diag.h"

namespace tinyfit::partition {

std::vector<int> add_split_input_readers(const ir::Graph& graph, const analysis::BufferGraph& bg,
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
  // What the loop could consume instead of leaving live past it: the
  // inputs it reads (made before it) and the tensors it makes, no model
  // outputs.
  std::vector<bool> consumable(bg.buffers.size(), false);
  for (int op : ops) {
    for (int b : bg.operators[static_cast<size_t>(op)].inputs) {
      const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
      if (buffer.producer < ops.front() && !buffer.is_model_output) consumable[static_cast<size_t>(b)] = true;
    }
    for (int b : bg.operators[static_cast<size_t>(op)].outputs) {
      consumable[static_cast<size_t>(b)] = !bg.buffers[static_cast<size_t>(b)].is_model_output;
    }
  }
  // Per joined operator, the bytes of the widest consumable input it
  // descends from: an output of fewer bytes is narrow, and can be handed on.
  std::vector<int64_t> origin_bytes(bg.operators.size(), 0);
  auto wide_output = [&](int b) {
    const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
    return buffer.bytes >= origin_bytes[static_cast<size_t>(buffer.producer)];
  };
  // Forward in the given order (topological).
  std::vector<int> added;
  for (size_t o = static_cast<size_t>(ops.back()) + 1; o < bg.operators.size(); ++o) {
    bool reads_outside = false;
    int64_t origin = 0;
    for (int b : bg.operators[o].inputs) {
      const int producer = bg.buffers[static_cast<size_t>(b)].producer;
      if (producer >= ops.front() && !in[static_cast<size_t>(producer)]) {
        reads_outside = true;
      } else if (producer > ops.back()) {
        if (wide_output(b)) origin = std::max(origin, origin_bytes[static_cast<size_t>(producer)]);
      } else if (consumable[static_cast<size_t>(b)]) {
        origin = std::max(origin, bg.buffers[static_cast<size_t>(b)].bytes);
      }
    }
    const int op = static_cast<int>(o);
    if (origin == 0 || reads_outside || rows_of(op) != sink_rows || !runs_by_rows(node_of(op))) continue;
    in[o] = true;
    origin_bytes[o] = origin;
    added.push_back(op);
  }
  // A joined operator with a wide output no other joined operator reads
  // leaves, and what reads a left one cannot stay: drop both until none is.
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (int op : added) {
      if (!in[static_cast<size_t>(op)]) continue;
      bool keep = true;
      for (int b : bg.operators[static_cast<size_t>(op)].inputs) {
        const int producer = bg.buffers[static_cast<size_t>(b)].producer;
        keep = keep && (producer < ops.front() || in[static_cast<size_t>(producer)]);
      }
      for (int b : bg.operators[static_cast<size_t>(op)].outputs) {
        if (!keep || !wide_output(b)) continue;
        keep = false;
        for (int reader : bg.buffers[static_cast<size_t>(b)].consumers) keep = keep || in[static_cast<size_t>(reader)];
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

std::vector<int> hoist_narrowing_readers(const analysis::BufferGraph& bg, const std::vector<int>& ops) {
  TINYFIT_CHECK(!ops.empty()) << "hoisting out of a loop of no operators";
  std::vector<int> kept;
  for (size_t i = 0; i < ops.size(); ++i) {
    const analysis::Operator& op = bg.operators[static_cast<size_t>(ops[i])];
    bool reads_before = !op.inputs.empty();
    int64_t widest_in = 0, widest_out = 0;
    for (int b : op.inputs) {
      reads_before = reads_before && bg.buffers[static_cast<size_t>(b)].producer < ops.front();
      widest_in = std::max(widest_in, bg.buffers[static_cast<size_t>(b)].bytes);
    }
    for (int b : op.outputs) widest_out = std::max(widest_out, bg.buffers[static_cast<size_t>(b)].bytes);
    if (i + 1 == ops.size() || !reads_before || widest_out >= widest_in) kept.push_back(ops[i]);
  }
  return kept;
}

}  // namespace tinyfit::partition
