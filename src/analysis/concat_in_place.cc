#include "analysis/concat_in_place.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "support/diag.h"

namespace tinyfit::analysis {

bool may_write_concat_input_in_place(const ir::Graph& graph, const ir::Node& concat, size_t input) {
  if (concat.op != ir::OpType::kConcat || !concat.activation.is_none() || concat.outputs.size() != 1) return false;
  const ir::TensorId x_id = concat.inputs.at(input);
  if (x_id == ir::kNoTensor || std::count(concat.inputs.begin(), concat.inputs.end(), x_id) != 1) return false;
  const ir::Tensor& x = graph.tensor(x_id);
  const ir::Tensor& y = graph.output_tensor(concat, 0);
  return !x.is_constant && x.dtype == y.dtype && x.quant == y.quant;
}

std::vector<size_t> choose_concat_inputs_in_place(
    std::span<const int> writer_steps, const std::function<ConcatInPlaceScore(std::span<const size_t>)>& score) {
  std::vector<size_t> candidates(writer_steps.size());
  std::iota(candidates.begin(), candidates.end(), size_t{0});
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](size_t a, size_t b) { return writer_steps[a] > writer_steps[b]; });
  ConcatInPlaceScore best = score({});
  size_t best_count = 0;
  for (size_t k = 1; k <= candidates.size(); ++k) {
    const ConcatInPlaceScore trial = score(std::span(candidates).first(k));
    if (trial < best) {
      best = trial;
      best_count = k;
    }
  }
  candidates.resize(best_count);
  return candidates;
}

namespace {

// A Concat input that may be written in place, in the buffer graph.
struct Candidate {
  int buffer = -1;
  int writer = -1;  // operator
  int writer_step = 0;
};

// The candidates of the Concat run by operator `concat` at `step`; empty when
// the Concat itself cannot be served (an input without a buffer).
std::vector<Candidate> find_candidates(const ir::Graph& graph, const BufferGraph& bg, const std::vector<int>& step_of,
                                       int concat) {
  const ir::Node& node = graph.nodes.at(static_cast<size_t>(bg.operators[static_cast<size_t>(concat)].node));
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ir::TensorId x = node.inputs[i];
    const int b = x == ir::kNoTensor ? -1 : bg.buffer_of_tensor.at(static_cast<size_t>(x));
    if (b < 0) return {};
    if (!may_write_concat_input_in_place(graph, node, i)) continue;
    const Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
    if (buffer.producer < 0 || buffer.is_model_output || buffer.consumers.size() != 1 || buffer.consumers[0] != concat) {
      continue;
    }
    const Operator& writer = bg.operators[static_cast<size_t>(buffer.producer)];
    if (writer.node < 0) continue;  // a loop
    // Made whole by its operator's node, not through an alias of another shape.
    const std::vector<ir::TensorId>& made = graph.nodes.at(static_cast<size_t>(writer.node)).outputs;
    if (std::find(made.begin(), made.end(), x) == made.end()) continue;
    candidates.push_back({b, buffer.producer, step_of[static_cast<size_t>(buffer.producer)]});
  }
  return candidates;
}

}  // namespace

ConcatInPlaceEstimate write_concat_inputs_in_place(const ir::Graph& graph, BufferGraph bg, const Order& order,
                                                   std::vector<int64_t> step_bytes) {
  TINYFIT_CHECK(step_bytes.size() == order.size()) << step_bytes.size() << " step byte counts for " << order.size()
                                                   << " steps";
  ConcatInPlaceEstimate result{std::move(bg), std::move(step_bytes), 0};
  BufferGraph& g = result.graph;
  std::vector<int64_t>& bytes = result.step_bytes;  // per step, of the graph as rewritten so far
  const size_t steps = order.size();
  std::vector<int> step_of(g.operators.size(), -1);
  for (size_t s = 0; s < steps; ++s) step_of[static_cast<size_t>(order[s])] = static_cast<int>(s);
  int64_t total_bytes = std::accumulate(bytes.begin(), bytes.end(), int64_t{0});
  // max_after[t]: max of bytes[t, steps), found once: a Concat's window ends
  // at it, so the steps after the one being looked at are still as given.
  // max_before[t]: max of bytes[0, t), valid up to before_valid (a window
  // applied invalidates it from its first step).
  std::vector<int64_t> max_after(steps + 1, 0);
  for (size_t t = steps; t-- > 0;) max_after[t] = std::max(max_after[t + 1], bytes[t]);
  std::vector<int64_t> max_before(steps + 1, 0);
  size_t before_valid = 0;
  auto max_before_step = [&](size_t n) {
    for (; before_valid < n; ++before_valid) {
      max_before[before_valid + 1] = std::max(max_before[before_valid], bytes[before_valid]);
    }
    return max_before[n];
  };

  for (size_t s = 0; s < steps; ++s) {
    const int concat = order[s];
    const Operator& op = g.operators[static_cast<size_t>(concat)];
    if (op.node < 0 || graph.nodes.at(static_cast<size_t>(op.node)).op != ir::OpType::kConcat) continue;
    const std::vector<Candidate> candidates = find_candidates(graph, g, step_of, concat);
    if (candidates.empty()) continue;
    const int output = op.outputs.at(0);
    const int64_t output_bytes = g.buffers[static_cast<size_t>(output)].bytes;
    std::vector<int> writer_steps;
    for (const Candidate& c : candidates) writer_steps.push_back(c.writer_step);
    const auto first = static_cast<size_t>(*std::min_element(writer_steps.begin(), writer_steps.end()));
    const int64_t outside_bytes = std::max(max_before_step(first), max_after[s + 1]);

    // Bytes of steps [first, s] with `chosen` in place: each input's bytes
    // gone from its writer to the Concat, the output live from the earliest
    // writer on.
    std::vector<int64_t> window;
    auto fill_window = [&](std::span<const size_t> chosen) {
      window.assign(bytes.begin() + static_cast<std::ptrdiff_t>(first),
                    bytes.begin() + static_cast<std::ptrdiff_t>(s) + 1);
      size_t earliest = s;
      for (size_t c : chosen) {
        const auto from = static_cast<size_t>(candidates[c].writer_step);
        earliest = std::min(earliest, from);
        const int64_t input_bytes = g.buffers[static_cast<size_t>(candidates[c].buffer)].bytes;
        for (size_t t = from; t <= s; ++t) window[t - first] -= input_bytes;
      }
      for (size_t t = earliest; t < s; ++t) window[t - first] += output_bytes;
    };
    auto score = [&](std::span<const size_t> chosen) {
      fill_window(chosen);
      ConcatInPlaceScore sc{outside_bytes, 0,
                            total_bytes - std::accumulate(bytes.begin() + static_cast<std::ptrdiff_t>(first),
                                                          bytes.begin() + static_cast<std::ptrdiff_t>(s) + 1,
                                                          int64_t{0})};
      for (size_t t = first; t <= s; ++t) {
        sc.peak_bytes = std::max(sc.peak_bytes, window[t - first]);
        sc.sum_bytes += window[t - first];
        if (g.operators[static_cast<size_t>(order[t])].node >= 0) {
          sc.local_peak_bytes = std::max(sc.local_peak_bytes, window[t - first]);
        }
      }
      return sc;
    };
    const std::vector<size_t> chosen = choose_concat_inputs_in_place(writer_steps, score);
    if (chosen.empty()) continue;
    fill_window(chosen);
    for (size_t t = first; t <= s; ++t) {
      total_bytes += window[t - first] - bytes[t];
      bytes[t] = window[t - first];
    }
    before_valid = std::min(before_valid, first);
    int earliest = concat;
    for (size_t c : chosen) {
      g.buffers[static_cast<size_t>(candidates[c].buffer)].bytes = 0;
      if (step_of[static_cast<size_t>(candidates[c].writer)] < step_of[static_cast<size_t>(earliest)]) {
        earliest = candidates[c].writer;
      }
    }
    g.buffers[static_cast<size_t>(output)].producer = earliest;
    result.inputs_in_place += static_cast<int>(chosen.size());
  }
  return result;
}

}  // namespace tinyfit::analysis
