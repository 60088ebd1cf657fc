#include "analysis/inplace.h"

#include <algorithm>
#include <utility>

#include "support/diag.h"

namespace tinyfit::analysis {
namespace {

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

// The merges of one order so far: the working graph (original buffer
// indices, nothing renumbered until finish()) and, per original buffer, the
// buffer that holds it now (itself, or the first buffer of its chain).
class Merging {
 public:
  Merging(const BufferGraph& bg, const Order& order)
      : original_(&bg),
        graph_(bg),
        holder_(bg.buffers.size()),
        removed_(bg.buffers.size(), false),
        lifetimes_(compute_memory_profile(bg, order).lifetimes) {
    for (size_t b = 0; b < holder_.size(); ++b) holder_[b] = static_cast<int>(b);
    graph_.inplace_options.clear();
  }

  // The order-dependent half of the rule (see the header) for `option` of
  // the operator at `step`.
  bool allows(const InplaceOption& option, int step) const {
    const size_t b = static_cast<size_t>(option.input_buffer);
    const int64_t held_bytes = graph_.buffers[static_cast<size_t>(holder_[b])].bytes;
    return lifetimes_[b].last_step == step && !original_->buffers[b].is_model_output &&
           held_bytes == original_->buffers[b].bytes;
  }

  void merge(int op, const InplaceOption& option) {
    const int out = original_->operators[static_cast<size_t>(op)].outputs.at(0);
    const int in = holder_[static_cast<size_t>(option.input_buffer)];
    merge_buffers(graph_, op, in, out);
    graph_.operators[static_cast<size_t>(op)].workspace_bytes += option.line_buffer_bytes;
    holder_[static_cast<size_t>(out)] = in;
    removed_[static_cast<size_t>(out)] = true;
    merges_.push_back({op, in, option.input_buffer, out, option.line_buffer_bytes});
  }

  const BufferGraph& graph() const { return graph_; }

  InplaceResult finish() && {
    const std::vector<int> new_index = compact_buffers(graph_, removed_);
    for (InplaceMerge& m : merges_) m.buffer = new_index[static_cast<size_t>(m.buffer)];
    return {std::move(graph_), std::move(merges_)};
  }

 private:
  const BufferGraph* original_;  // the graph before any merge
  BufferGraph graph_;
  std::vector<int> holder_;
  std::vector<bool> removed_;
  std::vector<Lifetime> lifetimes_;  // of the original buffers in this order
  std::vector<InplaceMerge> merges_;
};

}  // namespace

InplaceResult apply_inplace_choices(const BufferGraph& bg, const Order& order, const InplaceChoices& choices) {
  TINYFIT_CHECK(is_topological_order(bg, order)) << "in-place needs a topological order";
  TINYFIT_CHECK(choices.size() == bg.operators.size()) << choices.size() << " in-place choices for "
                                                       << bg.operators.size() << " operators";
  Merging merging(bg, order);
  for (size_t s = 0; s < order.size(); ++s) {
    const int op = order[s];
    const int chosen = choices[static_cast<size_t>(op)];
    if (chosen < 0) continue;
    const std::span<const InplaceOption> options = list_inplace_options_of(bg, op);
    const auto option = std::find_if(options.begin(), options.end(),
                                     [&](const InplaceOption& o) { return o.input_buffer == chosen; });
    TINYFIT_CHECK(option != options.end()) << "operator " << bg.operators[static_cast<size_t>(op)].name
                                           << " may not overwrite buffer " << chosen;
    TINYFIT_CHECK(merging.allows(*option, static_cast<int>(s)))
        << "operator " << bg.operators[static_cast<size_t>(op)].name << " may not overwrite buffer "
        << bg.buffers[static_cast<size_t>(chosen)].name << " at step " << s << " of this order";
    merging.merge(op, *option);
  }
  return std::move(merging).finish();
}

InplaceResult apply_inplace(const BufferGraph& bg, const Order& order) {
  TINYFIT_CHECK(is_topological_order(bg, order)) << "in-place needs a topological order";
  Merging merging(bg, order);
  MemoryProfile profile = compute_memory_profile(bg, order);
  for (size_t s = 0; s < order.size(); ++s) {
    const int op = order[s];
    for (const InplaceOption& option : list_inplace_options_of(bg, op)) {
      if (!merging.allows(option, static_cast<int>(s))) continue;
      Merging trial = merging;
      trial.merge(op, option);
      MemoryProfile trial_profile = compute_memory_profile(trial.graph(), order);
      const bool better = trial_profile.peak_bytes < profile.peak_bytes ||
                          (trial_profile.peak_bytes == profile.peak_bytes &&
                           sum_execution_bytes(trial_profile) < sum_execution_bytes(profile));
      if (!better) continue;
      merging = std::move(trial);
      profile = std::move(trial_profile);
      break;  // one output, one merge
    }
  }
  return std::move(merging).finish();
}

InplaceChoices list_inplace_choices(const InplaceResult& result) {
  InplaceChoices choices(result.graph.operators.size(), -1);
  for (const InplaceMerge& m : result.merges) choices[static_cast<size_t>(m.op)] = m.input_buffer;
  return choices;
}

InplaceChoices keep_choices_the_peak_needs(const BufferGraph& bg, const Order& order, const InplaceChoices& choices) {
  auto peak_of = [&](const InplaceChoices& c) {
    return compute_memory_profile(apply_inplace_choices(bg, order, c).graph, order).peak_bytes;
  };
  const int64_t peak = peak_of(choices);
  InplaceChoices kept = choices;
  for (auto step = order.rbegin(); step != order.rend(); ++step) {
    int& choice = kept[static_cast<size_t>(*step)];
    if (choice < 0) continue;
    const int dropped = std::exchange(choice, -1);
    if (peak_of(kept) > peak) choice = dropped;
  }
  return kept;
}

}  // namespace tinyfit::analysis
