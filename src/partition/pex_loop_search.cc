#include "partition/pex_loop_search.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

namespace tinyfit::partition {
namespace {

// A loop being grown: operators in the order they joined, with their rules.
struct Growing {
  OpSet members;
  std::vector<int> ops;
  std::vector<PexRule> rules;
  int64_t extent = 0;
};

class LoopGrower {
 public:
  LoopGrower(const PexGraph& pg, const OpSet& done, const LoopSearchLimits& limits, const Deadline& deadline)
      : pg_(pg), done_(done), limits_(limits), deadline_(deadline) {}

  LoopSearchResult run() {
    for (size_t s = 0; s < pg_.operators.size(); ++s) {
      const int op = static_cast<int>(s);
      if (!done_.has(op) && pg_.operators[s].chunkable && reads_only_done(pg_.operators[s])) ready_.push_back(op);
    }
    for (int seed : ready_) {
      if (result_.truncated) break;
      const PexOperator& op = pg_.operators[static_cast<size_t>(seed)];
      const int64_t extent = output_channels(seed);
      Growing g{OpSet(pg_.operators.size()), {}, {}, extent};
      const PexRule rule = op.kind == PexKind::kChannelwise ? PexRule::kPartialContinue : PexRule::kGenerate;
      push(g, seed, rule);
      grow();
    }
    return std::move(result_);
  }

 private:
  int64_t output_channels(int op) const {
    return pg_.buffers[static_cast<size_t>(pg_.operators[static_cast<size_t>(op)].outputs[0])].channels;
  }
  bool is_done(int producer) const { return producer < 0 || done_.has(producer); }
  bool reads_only_done(const PexOperator& op) const {
    return std::all_of(op.inputs.begin(), op.inputs.end(), [&](const PexRead& r) {
      return is_done(pg_.buffers[static_cast<size_t>(r.buffer)].producer);
    });
  }
  static bool makes_chunks(PexRule rule) { return rule == PexRule::kPartialContinue || rule == PexRule::kGenerate; }
  int index_in(const Growing& g, int op) const {
    for (size_t i = 0; i < g.ops.size(); ++i) {
      if (g.ops[i] == op) return static_cast<int>(i);
    }
    return -1;
  }

  void push(const Growing& from, int op, PexRule rule) {
    Growing g = from;
    g.members.add(op);
    if (!seen_.insert(g.members).second) return;
    if (static_cast<int64_t>(seen_.size()) > limits_.max_grown_sets) {
      result_.truncated = true;
      return;
    }
    g.ops.push_back(op);
    g.rules.push_back(rule);
    stack_.push_back(std::move(g));
  }

  // The rule `v` would follow in `g`, if it may join: every input is done or
  // a chunk made in g, and its channels are the loop's.
  bool rule_to_join(const Growing& g, int v, PexRule& rule) const {
    const PexOperator& op = pg_.operators[static_cast<size_t>(v)];
    if (!op.chunkable || done_.has(v) || g.members.has(v)) return false;
    bool reads_chunk = false;
    for (const PexRead& r : op.inputs) {
      const int producer = pg_.buffers[static_cast<size_t>(r.buffer)].producer;
      if (is_done(producer)) continue;
      const int i = index_in(g, producer);
      if (i < 0 || !makes_chunks(g.rules[static_cast<size_t>(i)]) || r.channels != g.extent) return false;
      reads_chunk = true;
    }
    if (op.kind == PexKind::kChannelwise) {
      rule = PexRule::kPartialContinue;
      return output_channels(v) == g.extent;
    }
    rule = reads_chunk ? PexRule::kAccumulate : PexRule::kGenerate;
    return reads_chunk || output_channels(v) == g.extent;
  }

  bool has_partial(const Growing& g) const {
    for (size_t i = 0; i < g.ops.size(); ++i) {
      if (!makes_chunks(g.rules[i])) continue;
      const PexBuffer& b = pg_.buffers[static_cast<size_t>(pg_.operators[static_cast<size_t>(g.ops[i])].outputs[0])];
      if (!b.is_model_output &&
          std::all_of(b.consumers.begin(), b.consumers.end(), [&](int c) { return g.members.has(c); })) {
        return true;
      }
    }
    return false;
  }

  void emit(const Growing& g) {
    std::vector<size_t> by_index(g.ops.size());
    std::iota(by_index.begin(), by_index.end(), size_t{0});
    std::sort(by_index.begin(), by_index.end(), [&](size_t a, size_t b) { return g.ops[a] < g.ops[b]; });
    PexLoop loop;
    loop.extent = g.extent;
    for (size_t i : by_index) {
      loop.ops.push_back(g.ops[i]);
      loop.rules.push_back(g.rules[i]);
    }
    result_.loops.push_back(std::move(loop));
    if (static_cast<int64_t>(result_.loops.size()) >= limits_.max_loops) result_.truncated = true;
  }

  void grow() {
    while (!stack_.empty() && !result_.truncated) {
      if (deadline_.expired()) {
        result_.truncated = true;
        return;
      }
      const Growing g = std::move(stack_.back());
      stack_.pop_back();
      if (has_partial(g)) emit(g);
      if (static_cast<int>(g.ops.size()) >= limits_.max_loop_ops) continue;
      // Candidates: ready operators, and readers of what g makes (any other
      // operator has an input neither done nor made in g).
      PexRule rule;
      for (int v : ready_) {
        if (rule_to_join(g, v, rule)) push(g, v, rule);
      }
      for (int op : g.ops) {
        for (int reader : pg_.buffers[static_cast<size_t>(pg_.operators[static_cast<size_t>(op)].outputs[0])].consumers) {
          if (rule_to_join(g, reader, rule)) push(g, reader, rule);
        }
      }
    }
  }

  const PexGraph& pg_;
  const OpSet& done_;
  const LoopSearchLimits& limits_;
  const Deadline& deadline_;
  std::vector<int> ready_;  // chunkable operators whose inputs are all done
  std::vector<Growing> stack_;
  std::unordered_set<OpSet, OpSetHash> seen_;
  LoopSearchResult result_;
};

}  // namespace

LoopSearchResult enumerate_loops(const PexGraph& pg, const OpSet& done, const LoopSearchLimits& limits,
                                 const Deadline& deadline) {
  return LoopGrower(pg, done, limits, deadline).run();
}

}  // namespace tinyfit::partition
