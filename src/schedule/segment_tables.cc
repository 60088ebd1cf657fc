#include "schedule/segment_tables.h"

#include <algorithm>

#include "schedule/operator_set_table.h"
#include "support/diag.h"

namespace tinyfit::schedule {
namespace {

using analysis::BufferGraph;

// Reachability as one bitset per operator (words per set each).
struct Reach {
  int words = 0;
  std::vector<uint64_t> ancestors;    // strict ancestors of each operator
  std::vector<uint64_t> descendants;  // strict descendants
  uint64_t* ancestors_of(int v) { return ancestors.data() + static_cast<size_t>(v) * static_cast<size_t>(words); }
  uint64_t* descendants_of(int v) {
    return descendants.data() + static_cast<size_t>(v) * static_cast<size_t>(words);
  }
};

Reach compute_reach(const SegmentTables& t) {
  Reach r;
  r.words = std::max(1, (t.ops + 63) / 64);
  const size_t cells = static_cast<size_t>(t.ops) * static_cast<size_t>(r.words);
  r.ancestors.assign(cells, 0);
  r.descendants.assign(cells, 0);
  for (int v = 0; v < t.ops; ++v) {  // producers come first in the given order
    uint64_t* a = r.ancestors_of(v);
    for (int p : t.preds[static_cast<size_t>(v)]) {
      const uint64_t* ap = r.ancestors_of(p);
      for (int w = 0; w < r.words; ++w) a[w] |= ap[w];
      add_op(a, p);
    }
  }
  for (int v = t.ops - 1; v >= 0; --v) {
    uint64_t* d = r.descendants_of(v);
    for (int s : t.succs[static_cast<size_t>(v)]) {
      const uint64_t* ds = r.descendants_of(s);
      for (int w = 0; w < r.words; ++w) d[w] |= ds[w];
      add_op(d, s);
    }
  }
  return r;
}

// Adds to step_bound_bytes every buffer that is produced before and freed
// after a step in every order (see the header); `always_live_bytes` is added
// to every operator.
void add_forced_live_bytes(const BufferGraph& bg, SegmentTables& t, int64_t always_live_bytes) {
  if (t.ops == 0) return;
  Reach r = compute_reach(t);
  std::vector<uint64_t> forced(static_cast<size_t>(r.words));
  for (size_t b = 0; b < bg.buffers.size(); ++b) {
    const analysis::Buffer& buffer = bg.buffers[b];
    if (buffer.producer < 0 && buffer.is_model_output) continue;  // in always_live_bytes
    // After the producer (every operator for a segment input) ...
    if (buffer.producer >= 0) {
      const uint64_t* d = r.descendants_of(buffer.producer);
      std::copy(d, d + r.words, forced.begin());
    } else {
      std::fill(forced.begin(), forced.end(), ~uint64_t{0});
    }
    // ... and before some consumer (every operator for a model output).
    if (!buffer.is_model_output) {
      std::vector<uint64_t> before(static_cast<size_t>(r.words), 0);
      for (int c : buffer.consumers) {
        const uint64_t* a = r.ancestors_of(c);
        for (int w = 0; w < r.words; ++w) before[static_cast<size_t>(w)] |= a[w];
      }
      for (int w = 0; w < r.words; ++w) forced[static_cast<size_t>(w)] &= before[static_cast<size_t>(w)];
    }
    for (int c : buffer.consumers) remove_op(forced.data(), c);  // counted as an input
    for (int v = 0; v < t.ops; ++v) {
      if (contains_op(forced.data(), v)) t.step_bound_bytes[static_cast<size_t>(v)] += buffer.bytes;
    }
  }
  for (int64_t& bound : t.step_bound_bytes) bound += always_live_bytes;
}

}  // namespace

SegmentTables build_segment_tables(const BufferGraph& bg) {
  const int n = static_cast<int>(bg.operators.size());
  SegmentTables t;
  t.ops = n;
  t.preds.assign(static_cast<size_t>(n), {});
  t.succs.assign(static_cast<size_t>(n), {});
  t.output_bytes.assign(static_cast<size_t>(n), 0);
  t.kept_output_bytes.assign(static_cast<size_t>(n), 0);
  t.workspace_bytes.assign(static_cast<size_t>(n), 0);
  t.freeable_inputs.assign(static_cast<size_t>(n), {});
  t.step_bound_bytes.assign(static_cast<size_t>(n), 0);
  t.consumers.reserve(bg.buffers.size());
  t.buffer_bytes.reserve(bg.buffers.size());
  int64_t always_live_bytes = 0;  // segment inputs that are also outputs: live at every step
  for (const analysis::Buffer& buffer : bg.buffers) {
    t.consumers.push_back(buffer.consumers);
    t.buffer_bytes.push_back(buffer.bytes);
    if (buffer.producer >= 0) continue;
    if (buffer.is_model_output) always_live_bytes += buffer.bytes;
    if (buffer.is_model_output || !buffer.consumers.empty()) {
      t.initial_live_bytes += buffer.bytes;
    } else {
      t.unread_input_bytes += buffer.bytes;
    }
  }
  for (int v = 0; v < n; ++v) {
    const analysis::Operator& op = bg.operators[static_cast<size_t>(v)];
    std::vector<int>& preds = t.preds[static_cast<size_t>(v)];
    int64_t own_bytes = op.workspace_bytes;
    for (int b : op.inputs) {
      const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
      if (buffer.producer >= 0) preds.push_back(buffer.producer);
      if (!buffer.is_model_output) t.freeable_inputs[static_cast<size_t>(v)].push_back(b);
      if (buffer.producer < 0 && buffer.is_model_output) continue;  // in always_live_bytes
      own_bytes += buffer.bytes;
    }
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (int p : preds) {
      TINYFIT_CHECK(p < v) << "operator " << v << " reads operator " << p << ": the given order is not topological";
      t.succs[static_cast<size_t>(p)].push_back(v);  // v ascending, so each list is sorted
    }
    for (int b : op.outputs) {
      const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
      t.output_bytes[static_cast<size_t>(v)] += buffer.bytes;
      if (buffer.is_model_output || !buffer.consumers.empty()) t.kept_output_bytes[static_cast<size_t>(v)] += buffer.bytes;
      own_bytes += buffer.bytes;
    }
    t.workspace_bytes[static_cast<size_t>(v)] = op.workspace_bytes;
    t.step_bound_bytes[static_cast<size_t>(v)] = own_bytes;
  }
  add_forced_live_bytes(bg, t, always_live_bytes);
  t.bound_from_bytes = t.step_bound_bytes;
  for (int v = n - 1; v >= 0; --v) {
    for (int s : t.succs[static_cast<size_t>(v)]) {
      t.bound_from_bytes[static_cast<size_t>(v)] =
          std::max(t.bound_from_bytes[static_cast<size_t>(v)], t.bound_from_bytes[static_cast<size_t>(s)]);
    }
  }
  // entering(lo) = {v >= lo : max producer of v < lo}; v is listed for lo in
  // (max producer, v].
  t.entering_begin.assign(static_cast<size_t>(n) + 2, 0);
  auto first_lo = [&](int v) { return t.preds[static_cast<size_t>(v)].empty() ? 0 : t.preds[static_cast<size_t>(v)].back() + 1; };
  for (int v = 0; v < n; ++v) {
    for (int lo = first_lo(v); lo <= v; ++lo) ++t.entering_begin[static_cast<size_t>(lo) + 1];
  }
  for (int lo = 0; lo <= n; ++lo) t.entering_begin[static_cast<size_t>(lo) + 1] += t.entering_begin[static_cast<size_t>(lo)];
  t.entering_ops.assign(static_cast<size_t>(t.entering_begin[static_cast<size_t>(n) + 1]), -1);
  std::vector<int> fill(t.entering_begin.begin(), t.entering_begin.end() - 1);
  for (int v = 0; v < n; ++v) {
    for (int lo = first_lo(v); lo <= v; ++lo) t.entering_ops[static_cast<size_t>(fill[static_cast<size_t>(lo)]++)] = v;
  }
  return t;
}

StepMemory take_step(const SegmentTables& t, const uint64_t* after, int64_t live_bytes, int op, bool first_step) {
  const size_t v = static_cast<size_t>(op);
  StepMemory m;
  m.during_bytes = live_bytes + t.output_bytes[v] + t.workspace_bytes[v] + (first_step ? t.unread_input_bytes : 0);
  m.live_after_bytes = live_bytes + t.kept_output_bytes[v];
  for (int b : t.freeable_inputs[v]) {
    bool last = true;
    for (int c : t.consumers[static_cast<size_t>(b)]) last = last && contains_op(after, c);
    if (last) m.live_after_bytes -= t.buffer_bytes[static_cast<size_t>(b)];
  }
  return m;
}

ReadyOperators::ReadyOperators(const SegmentTables& t) : t_(t), stamp_(static_cast<size_t>(t.ops), 0) {}

const std::vector<int>& ReadyOperators::collect(const uint64_t* set) {
  ready_.clear();
  ++epoch_;
  auto consider = [&](int v) {
    if (stamp_[static_cast<size_t>(v)] == epoch_ || contains_op(set, v)) return;
    stamp_[static_cast<size_t>(v)] = epoch_;
    for (int p : t_.preds[static_cast<size_t>(v)]) {
      if (!contains_op(set, p)) return;
    }
    ready_.push_back(v);
  };
  // lo: the first operator not run. Every ready operator is either entering at
  // lo (all producers before lo) or a consumer of a member at or after lo.
  const int words = (t_.ops + 63) / 64;
  int lo = t_.ops;
  for (int w = 0; w < words; ++w) {
    if (set[w] != ~uint64_t{0}) {
      lo = std::min(t_.ops, w * 64 + __builtin_ctzll(~set[w]));
      break;
    }
  }
  for (int i = t_.entering_begin[static_cast<size_t>(lo)]; i < t_.entering_begin[static_cast<size_t>(lo) + 1]; ++i) {
    consider(t_.entering_ops[static_cast<size_t>(i)]);
  }
  for (int w = lo / 64; w < words; ++w) {
    uint64_t bits = set[w];
    if (w == lo / 64) bits &= ~uint64_t{0} << (lo & 63);
    while (bits != 0) {
      const int u = w * 64 + __builtin_ctzll(bits);
      bits &= bits - 1;
      for (int s : t_.succs[static_cast<size_t>(u)]) consider(s);
    }
  }
  std::sort(ready_.begin(), ready_.end());
  return ready_;
}

}  // namespace tinyfit::schedule
