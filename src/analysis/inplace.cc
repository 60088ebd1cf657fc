#include "analysis/inplace.h"

#include <algorithm>

#include "support/diag.h"

namespace tinyfit::analysis {
namespace {

// Floor division for a possibly negative numerator (positive divisor).
int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Sum over steps of execution bytes: the tie-break when a merge keeps the peak.
int64_t sum_execution_bytes(const MemoryProfile& profile) {
  int64_t sum = 0;
  for (const StepMemory& s : profile.steps) sum += s.execution_bytes;
  return sum;
}

// Merges buffer `out` into buffer `in` (the output of operator `op`): one
// buffer of the larger size, consumed by both tensors' consumers. `out` stays
// behind as an empty, unreferenced record until compact_buffers drops it.
void merge_buffers(BufferGraph& g, int op, int in, int out) {
  Buffer& kept = g.buffers[static_cast<size_t>(in)];
  Buffer& gone = g.buffers[static_cast<size_t>(out)];
  kept.bytes = std::max(kept.bytes, gone.bytes);
  kept.is_model_output = kept.is_model_output || gone.is_model_output;
  for (int consumer : gone.consumers) {
    std::vector<int>& inputs = g.operators[static_cast<size_t>(consumer)].inputs;
    std::replace(inputs.begin(), inputs.end(), out, in);
    inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
    kept.consumers.push_back(consumer);
  }
  std::sort(kept.consumers.begin(), kept.consumers.end());
  kept.consumers.erase(std::unique(kept.consumers.begin(), kept.consumers.end()), kept.consumers.end());
  std::vector<int>& outputs = g.operators[static_cast<size_t>(op)].outputs;
  std::replace(outputs.begin(), outputs.end(), out, in);
  std::replace(g.buffer_of_tensor.begin(), g.buffer_of_tensor.end(), out, in);
  gone.bytes = 0;
  gone.consumers.clear();
  gone.is_model_output = false;
}

// Drops the merged-away buffers and renumbers the rest in their old order.
std::vector<int> compact_buffers(BufferGraph& g, const std::vector<bool>& removed) {
  std::vector<int> new_index(g.buffers.size(), -1);
  std::vector<Buffer> kept;
  for (size_t b = 0; b < g.buffers.size(); ++b) {
    if (removed[b]) continue;
    new_index[b] = static_cast<int>(kept.size());
    kept.push_back(std::move(g.buffers[b]));
  }
  g.buffers = std::move(kept);
  auto remap = [&](int& b) {
    if (b >= 0) b = new_index[static_cast<size_t>(b)];
  };
  for (Operator& op : g.operators) {
    std::for_each(op.inputs.begin(), op.inputs.end(), remap);
    std::for_each(op.outputs.begin(), op.outputs.end(), remap);
  }
  std::for_each(g.buffer_of_tensor.begin(), g.buffer_of_tensor.end(), remap);
  return new_index;
}

// The candidate the rule allows for this node's input `i`, with the line
// buffer it needs (-1: not allowed).
int64_t line_buffer_bytes_for(const ir::Graph& graph, const ir::Node& node, size_t i, ir::InplaceRule rule) {
  const ir::Tensor& in = graph.input_tensor(node, i);
  const ir::Tensor& out = graph.output_tensor(node, 0);
  if (ir::dtype_size_bytes(in.dtype) != ir::dtype_size_bytes(out.dtype)) return -1;
  if (rule == ir::InplaceRule::kElementwise) return in.shape == out.shape ? 0 : -1;
  if (rule != ir::InplaceRule::kLineBuffer || i != 0) return -1;
  // NHWC, batch 1, channel multiplier 1.
  if (in.shape.size() != 4 || out.shape.size() != 4 || in.shape[0] != 1 || out.shape[0] != 1 ||
      in.shape[3] != out.shape[3]) {
    return -1;
  }
  const auto& a = node.attr<ir::ConvAttrs>();
  const int64_t rows = compute_line_buffer_rows(in.shape[1], in.shape[2], out.shape[1], out.shape[2],
                                                ir::Window{a.kernel_h, a.stride_h, a.dilation_h, a.pad.top});
  if (rows < 0) return -1;
  return rows * out.shape[2] * out.shape[3] * ir::dtype_size_bytes(out.dtype);
}

}  // namespace

// Row-wise in-place depthwise convolution, NHWC, channels C on both sides.
// Output row r occupies the bytes [r*Wo*C, (r+1)*Wo*C) of the shared buffer;
// input row i occupied [i*Wi*C, (i+1)*Wi*C). Rows are computed in order
// 0..Ho-1, each into the line buffer, and written to its place only when no
// output row still to compute reads the input bytes it covers:
//  - output row r covers input rows up to hi(r) = floor(((r+1)*Wo - 1) / Wi)
//    (lower input rows only matter less: readers move monotonically down);
//  - output row q reads input rows [q*S - P, q*S - P + (K-1)*D], so the last
//    output row reading input row h is release(h) = min(Ho-1, floor((h+P)/S))
//    (conservative when S > (K-1)*D + 1 leaves rows unread);
//  - row r is written right after computing row release(hi(r)); if that is
//    before r, no row from r on reads those bytes and r is written directly.
// Rows waiting at the moment row t is computed are r..t for the first r with
// release(hi(r)) >= t; since release(hi(r)) is non-decreasing in r, the most
// ever waiting is max over r of release(hi(r)) - r + 1 (0 if always negative).
// Example: 3x3, stride 1, pad 1, Wo = Wi: hi(r) = r, release = r + 1: 2 rows.
// Stride 2 with Wi = 2*Wo: hi(0) = 0, release(0) = floor(P/2) = 0: 1 row.
int64_t compute_line_buffer_rows(int64_t in_rows, int64_t in_cols, int64_t out_rows, int64_t out_cols,
                                 const ir::Window& window) {
  if (in_cols <= 0 || out_rows * out_cols > in_rows * in_cols || window.stride < 1) return -1;
  int64_t most = 0;
  for (int64_t r = 0; r < out_rows; ++r) {
    const int64_t hi = ((r + 1) * out_cols - 1) / in_cols;
    const int64_t release = std::min(out_rows - 1, floor_div(hi + window.pad_before, window.stride));
    most = std::max(most, release - r + 1);
  }
  return most;
}

InplaceResult apply_inplace(const ir::Graph& graph, const BufferGraph& bg, const Order& order) {
  TINYFIT_CHECK(is_topological_order(bg, order)) << "in-place needs a topological order";
  const int steps = static_cast<int>(order.size());
  std::vector<int> step_of(bg.operators.size(), -1);
  for (int s = 0; s < steps; ++s) step_of[static_cast<size_t>(order[static_cast<size_t>(s)])] = s;

  BufferGraph g = bg;
  std::vector<bool> removed(bg.buffers.size(), false);
  std::vector<InplaceMerge> merges;
  MemoryProfile profile = compute_memory_profile(g, order);
  for (int s = 0; s < steps; ++s) {
    const int op_index = order[static_cast<size_t>(s)];
    const Operator& op = g.operators[static_cast<size_t>(op_index)];
    const ir::Node& node = graph.nodes.at(static_cast<size_t>(op.node));
    const ir::InplaceRule rule = ir::op_decl(node.op).inplace;
    if (rule == ir::InplaceRule::kNever || op.outputs.size() != 1 || node.outputs.size() != 1) continue;
    const int out = op.outputs[0];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ir::TensorId tensor = node.inputs[i];
      if (tensor == ir::kNoTensor || graph.tensor(tensor).is_constant) continue;
      const int in = g.buffer_of_tensor[static_cast<size_t>(tensor)];
      if (in < 0 || in == out) continue;
      const Buffer& buffer = g.buffers[static_cast<size_t>(in)];
      // Dies here: a model input is the caller's, a model output must survive,
      // and any later reader needs the bytes intact.
      if (buffer.producer < 0 || buffer.is_model_output) continue;
      if (profile.lifetimes[static_cast<size_t>(in)].last_step != s) continue;
      // The same buffer read through another tensor of another shape (an
      // alias) would be read at other indices than the ones being written.
      bool read_otherwise = false;
      for (size_t k = 0; k < node.inputs.size(); ++k) {
        const ir::TensorId other = node.inputs[k];
        if (k == i || other == ir::kNoTensor || graph.tensor(other).is_constant) continue;
        read_otherwise = read_otherwise || (g.buffer_of_tensor[static_cast<size_t>(other)] == in &&
                                            graph.tensor(other).shape != graph.tensor(tensor).shape);
      }
      if (read_otherwise) continue;
      const int64_t line_buffer = line_buffer_bytes_for(graph, node, i, rule);
      if (line_buffer < 0 || line_buffer >= g.buffers[static_cast<size_t>(out)].bytes) continue;

      BufferGraph trial = g;
      merge_buffers(trial, op_index, in, out);
      trial.operators[static_cast<size_t>(op_index)].workspace_bytes += line_buffer;
      MemoryProfile trial_profile = compute_memory_profile(trial, order);
      const bool better = trial_profile.peak_bytes < profile.peak_bytes ||
                          (trial_profile.peak_bytes == profile.peak_bytes &&
                           sum_execution_bytes(trial_profile) < sum_execution_bytes(profile));
      if (!better) continue;
      g = std::move(trial);
      profile = std::move(trial_profile);
      removed[static_cast<size_t>(out)] = true;
      merges.push_back({op_index, in, in, out, line_buffer});
      break;  // one output, one merge
    }
  }
  // Merge targets were indices of the working graph, which are the original
  // indices (nothing is renumbered until here); chained merges point at the
  // buffer that finally holds them.
  const std::vector<int> new_index = compact_buffers(g, removed);
  for (InplaceMerge& m : merges) m.buffer = new_index[static_cast<size_t>(m.input_buffer)];
  return {std::move(g), std::move(merges)};
}

}  // namespace tinyfit::analysis
