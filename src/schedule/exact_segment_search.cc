#include "schedule/exact_segment_search.h"

#include <algorithm>
#include <array>
#include <utility>
#include <unordered_map>

#include "support/diag.h"

namespace tinyfit::schedule {
namespace {

using analysis::BufferGraph;

using StateKey = std::array<uint64_t, kMaxExactSegmentOps / 64>;

struct StateKeyHash {
  size_t operator()(const StateKey& key) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint64_t word : key) {  // splitmix64 finaliser per word
      h ^= word + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
      h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
      h ^= h >> 31;
    }
    return static_cast<size_t>(h);
  }
};

bool has_op(const StateKey& set, int v) { return (set[static_cast<size_t>(v) / 64] >> (v % 64)) & 1u; }
void add_op(StateKey& set, int v) { set[static_cast<size_t>(v) / 64] |= uint64_t{1} << (v % 64); }
void remove_op(StateKey& set, int v) { set[static_cast<size_t>(v) / 64] &= ~(uint64_t{1} << (v % 64)); }
bool contains_all(const StateKey& set, const StateKey& subset) {
  for (size_t w = 0; w < set.size(); ++w) {
    if ((set[w] & subset[w]) != subset[w]) return false;
  }
  return true;
}

struct Entry {
  int64_t peak_bytes;  // best peak over the orders of this set found so far
  int64_t live_bytes;  // live after the set has run (determined by the set)
  int last_op;         // the last operator of the best order (to rebuild it)
};

// Everything a transition needs, precomputed once per segment.
struct SegmentTables {
  std::vector<StateKey> producer_ops;      // per operator
  std::vector<StateKey> consumer_ops;      // per buffer
  std::vector<int64_t> output_bytes;       // per operator: all its outputs
  std::vector<int64_t> kept_output_bytes;  // per operator: outputs someone reads later
  std::vector<int64_t> lower_bound_bytes;  // per operator: memory it needs in any order
  std::vector<int> by_lower_bound;         // operators, largest bound first, ties by index
  int64_t initial_live_bytes = 0;          // model inputs someone reads or returns
  int64_t unread_input_bytes = 0;          // model inputs nobody reads: step 0 only
};

SegmentTables build_tables(const BufferGraph& bg) {
  const size_t n = bg.operators.size();
  SegmentTables t;
  t.producer_ops.assign(n, StateKey{});
  t.consumer_ops.assign(bg.buffers.size(), StateKey{});
  t.output_bytes.assign(n, 0);
  t.kept_output_bytes.assign(n, 0);
  t.lower_bound_bytes.assign(n, 0);
  int64_t always_live_bytes = 0;  // inputs that are also outputs: live at every step
  for (size_t b = 0; b < bg.buffers.size(); ++b) {
    const analysis::Buffer& buffer = bg.buffers[b];
    for (int c : buffer.consumers) add_op(t.consumer_ops[b], c);
    if (buffer.producer >= 0) continue;
    if (buffer.is_model_output) always_live_bytes += buffer.bytes;
    if (buffer.is_model_output || !buffer.consumers.empty()) {
      t.initial_live_bytes += buffer.bytes;
    } else {
      t.unread_input_bytes += buffer.bytes;
    }
  }
  for (size_t v = 0; v < n; ++v) {
    const analysis::Operator& op = bg.operators[v];
    int64_t bound = op.workspace_bytes + always_live_bytes;
    for (int b : op.inputs) {
      const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
      if (buffer.producer >= 0) add_op(t.producer_ops[v], buffer.producer);
      if (buffer.producer < 0 && buffer.is_model_output) continue;  // counted in always_live_bytes
      bound += buffer.bytes;
    }
    for (int b : op.outputs) {
      const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
      t.output_bytes[v] += buffer.bytes;
      if (buffer.is_model_output || !buffer.consumers.empty()) t.kept_output_bytes[v] += buffer.bytes;
      bound += buffer.bytes;
    }
    t.lower_bound_bytes[v] = bound;
    t.by_lower_bound.push_back(static_cast<int>(v));
  }
  std::sort(t.by_lower_bound.begin(), t.by_lower_bound.end(), [&](int a, int b) {
    const int64_t la = t.lower_bound_bytes[static_cast<size_t>(a)];
    const int64_t lb = t.lower_bound_bytes[static_cast<size_t>(b)];
    return la != lb ? la > lb : a < b;
  });
  return t;
}

// The layered dynamic programme; beam_width == 0 means exact (keep every state).
SegmentSearchResult search_layers(const BufferGraph& bg, const Order& incumbent, const OrderOptions& options,
                                  const std::function<void(double)>& progress, int beam_width) {
  const int n = static_cast<int>(bg.operators.size());
  TINYFIT_CHECK(n <= kMaxExactSegmentOps) << "segment of " << n << " operators exceeds the state key";
  TINYFIT_CHECK(analysis::is_topological_order(bg, incumbent)) << "the incumbent order is not topological";
  SegmentSearchResult result;
  result.order = incumbent;
  result.peak_bytes = analysis::compute_memory_profile(bg, incumbent).peak_bytes;
  if (n == 0) return result;
  const SegmentTables t = build_tables(bg);
  // Nothing can beat the largest per-operator bound: the incumbent is optimal.
  if (t.lower_bound_bytes[static_cast<size_t>(t.by_lower_bound[0])] >= result.peak_bytes) return result;
  const int64_t upper_bytes = result.peak_bytes;  // only strictly better states are kept

  auto bound_of_remaining = [&](const StateKey& set) -> int64_t {
    for (int v : t.by_lower_bound) {
      if (!has_op(set, v)) return t.lower_bound_bytes[static_cast<size_t>(v)];
    }
    return 0;
  };

  std::unordered_map<StateKey, Entry, StateKeyHash> seen;
  seen.reserve(static_cast<size_t>(std::min<int64_t>(options.max_states_per_segment, int64_t{1} << 16)));
  std::vector<StateKey> frontier{StateKey{}};
  std::vector<StateKey> next;
  seen.emplace(StateKey{}, Entry{0, t.initial_live_bytes, -1});

  struct Move {
    int op;
    int64_t during_bytes;
    int64_t live_after_bytes;
  };
  std::vector<Move> moves;
  for (int layer = 0; layer < n && !frontier.empty(); ++layer) {
    next.clear();
    for (const StateKey& set : frontier) {
      if ((++result.states_explored & 63) == 0 && beam_width == 0 && options.deadline.expired()) {
        result.stop = SearchStop::kDeadline;
        return result;
      }
      const Entry entry = seen.at(set);
      const int64_t floor_bytes = std::max(entry.peak_bytes, bound_of_remaining(set));
      if (floor_bytes >= upper_bytes) continue;

      moves.clear();
      for (int v = 0; v < n; ++v) {
        if (has_op(set, v) || !contains_all(set, t.producer_ops[static_cast<size_t>(v)])) continue;
        StateKey after = set;
        add_op(after, v);
        int64_t live = entry.live_bytes + t.kept_output_bytes[static_cast<size_t>(v)];
        for (int b : bg.operators[static_cast<size_t>(v)].inputs) {
          const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
          if (!buffer.is_model_output && contains_all(after, t.consumer_ops[static_cast<size_t>(b)])) {
            live -= buffer.bytes;
          }
        }
        const int64_t during = entry.live_bytes + t.output_bytes[static_cast<size_t>(v)] +
                               bg.operators[static_cast<size_t>(v)].workspace_bytes +
                               (layer == 0 ? t.unread_input_bytes : 0);
        // Dominance: running v now costs nothing above what every completion
        // already pays and leaves no more memory live; see the header.
        if (during <= floor_bytes && live <= entry.live_bytes) {
          moves.assign(1, Move{v, during, live});
          break;
        }
        moves.push_back(Move{v, during, live});
      }
      for (const Move& move : moves) {
        const int64_t peak = std::max(entry.peak_bytes, move.during_bytes);
        if (peak >= upper_bytes) continue;
        StateKey after = set;
        add_op(after, move.op);
        auto [it, inserted] = seen.try_emplace(after, Entry{peak, move.live_after_bytes, move.op});
        if (inserted) {
          next.push_back(after);
        } else if (peak < it->second.peak_bytes) {
          it->second.peak_bytes = peak;
          it->second.last_op = move.op;
        }
      }
      if (beam_width == 0 && static_cast<int64_t>(seen.size()) >= options.max_states_per_segment) {
        result.stop = SearchStop::kStateCap;
        return result;
      }
    }
    if (beam_width > 0 && next.size() > static_cast<size_t>(beam_width)) {
      // Keep the most promising states; sorting (peak, live, discovery index)
      // keeps the choice total and deterministic.
      std::vector<std::pair<std::pair<int64_t, int64_t>, size_t>> ranked;
      ranked.reserve(next.size());
      for (size_t i = 0; i < next.size(); ++i) {
        const Entry& e = seen.at(next[i]);
        ranked.push_back({{e.peak_bytes, e.live_bytes}, i});
      }
      std::sort(ranked.begin(), ranked.end());
      std::vector<StateKey> kept;
      kept.reserve(static_cast<size_t>(beam_width));
      for (int i = 0; i < beam_width; ++i) kept.push_back(next[ranked[static_cast<size_t>(i)].second]);
      next.swap(kept);
    }
    frontier.swap(next);
    if (progress) progress(static_cast<double>(layer + 1) / n);
  }

  StateKey all{};
  for (int v = 0; v < n; ++v) add_op(all, v);
  if (beam_width > 0) result.stop = SearchStop::kBeam;
  auto found = seen.find(all);
  if (found == seen.end()) return result;  // nothing beats the incumbent (exact: it is optimal)
  result.peak_bytes = found->second.peak_bytes;
  Order order(static_cast<size_t>(n));
  StateKey set = all;
  for (int step = n - 1; step >= 0; --step) {
    const int op = seen.at(set).last_op;
    order[static_cast<size_t>(step)] = op;
    remove_op(set, op);
  }
  result.order = std::move(order);
  return result;
}

}  // namespace

SegmentSearchResult search_min_peak_order(const BufferGraph& bg, const Order& incumbent,
                                          const OrderOptions& options,
                                          const std::function<void(double)>& progress) {
  return search_layers(bg, incumbent, options, progress, /*beam_width=*/0);
}

SegmentSearchResult search_beam_order(const BufferGraph& bg, const Order& incumbent, int beam_width) {
  TINYFIT_CHECK(beam_width >= 1) << "beam width " << beam_width;
  return search_layers(bg, incumbent, OrderOptions{}, nullptr, beam_width);
}

}  // namespace tinyfit::schedule
