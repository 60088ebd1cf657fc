#include "partition/pex_loop.h"

#include <algorithm>
#include <bit>

#include "support/diag.h"

namespace tinyfit::partition {
namespace {

bool is_made_by(const PexGraph& pg, const OpSet& done, int buffer) {
  const int producer = pg.buffers[static_cast<size_t>(buffer)].producer;
  return producer < 0 || done.has(producer);
}

bool is_read_after(const PexGraph& pg, const OpSet& done, int buffer) {
  const PexBuffer& b = pg.buffers[static_cast<size_t>(buffer)];
  return b.is_model_output ||
         std::any_of(b.consumers.begin(), b.consumers.end(), [&](int c) { return !done.has(c); });
}

}  // namespace

int OpSet::count() const {
  int n = 0;
  for (uint64_t w : words_) n += std::popcount(w);
  return n;
}

size_t OpSetHash::operator()(const OpSet& set) const {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (uint64_t w : set.words()) h = (h ^ w) * 0xBF58476D1CE4E5B9ull + (h >> 29);
  return static_cast<size_t>(h);
}

std::optional<PexLoop> make_loop_if_valid(const PexGraph& pg, const OpSet& done, const std::vector<int>& members) {
  auto in_set = [&](int op) { return std::find(members.begin(), members.end(), op) != members.end(); };
  PexLoop loop;
  loop.extent = -1;
  for (int v : members) {  // ascending
    const PexOperator& op = pg.operators[static_cast<size_t>(v)];
    if (!op.chunkable || done.has(v)) return std::nullopt;
    bool reads_loop = false;
    for (const PexRead& r : op.inputs) {
      const int p = pg.buffers[static_cast<size_t>(r.buffer)].producer;
      if (p >= 0 && !done.has(p) && !in_set(p)) return std::nullopt;  // not ready
      reads_loop = reads_loop || (p >= 0 && in_set(p));
    }
    const int64_t out_channels = pg.buffers[static_cast<size_t>(op.outputs[0])].channels;
    PexRule rule = PexRule::kPartialContinue;
    int64_t extent = out_channels;
    if (op.kind == PexKind::kAggregating) {
      rule = reads_loop ? PexRule::kAccumulate : PexRule::kGenerate;
      if (reads_loop) extent = op.inputs[0].channels;
    }
    if (loop.extent >= 0 && extent != loop.extent) return std::nullopt;
    loop.extent = extent;
    loop.ops.push_back(v);
    loop.rules.push_back(rule);
  }
  // An operator in the loop reads only chunks: its producer in the loop must make chunks.
  for (size_t i = 0; i < loop.ops.size(); ++i) {
    for (const PexRead& r : pg.operators[static_cast<size_t>(loop.ops[i])].inputs) {
      const int p = pg.buffers[static_cast<size_t>(r.buffer)].producer;
      if (p < 0 || !in_set(p)) continue;
      const size_t j = static_cast<size_t>(std::find(loop.ops.begin(), loop.ops.end(), p) - loop.ops.begin());
      if (loop.rules[j] == PexRule::kAccumulate || r.channels != loop.extent) return std::nullopt;
    }
  }
  const std::vector<LoopBufferForm> form = classify_loop_buffers(pg, loop);
  if (std::find(form.begin(), form.end(), LoopBufferForm::kPartial) == form.end()) return std::nullopt;
  return loop;
}

std::vector<LoopBufferForm> classify_loop_buffers(const PexGraph& pg, const PexLoop& loop) {
  std::vector<LoopBufferForm> form(pg.buffers.size(), LoopBufferForm::kNone);
  std::vector<bool> in_loop(pg.operators.size(), false);
  for (int op : loop.ops) in_loop[static_cast<size_t>(op)] = true;
  for (size_t i = 0; i < loop.ops.size(); ++i) {
    const PexOperator& op = pg.operators[static_cast<size_t>(loop.ops[i])];
    for (const PexRead& read : op.inputs) {
      const int producer = pg.buffers[static_cast<size_t>(read.buffer)].producer;
      if (producer < 0 || !in_loop[static_cast<size_t>(producer)]) form[static_cast<size_t>(read.buffer)] = LoopBufferForm::kInput;
    }
    for (int b : op.outputs) {
      const PexBuffer& buffer = pg.buffers[static_cast<size_t>(b)];
      if (loop.rules[i] == PexRule::kAccumulate) {
        form[static_cast<size_t>(b)] = LoopBufferForm::kAccumulated;
        continue;
      }
      const bool escapes = buffer.is_model_output ||
                           std::any_of(buffer.consumers.begin(), buffer.consumers.end(),
                                       [&](int c) { return !in_loop[static_cast<size_t>(c)]; });
      form[static_cast<size_t>(b)] = escapes ? LoopBufferForm::kPostConcat : LoopBufferForm::kPartial;
    }
  }
  return form;
}

int64_t compute_live_bytes(const PexGraph& pg, const OpSet& done) {
  int64_t bytes = 0;
  for (size_t b = 0; b < pg.buffers.size(); ++b) {
    const int id = static_cast<int>(b);
    if (is_made_by(pg, done, id) && is_read_after(pg, done, id)) bytes += pg.buffers[b].bytes;
  }
  return bytes;
}

int64_t compute_whole_op_peak(const PexGraph& pg, const OpSet& done, int op) {
  const PexOperator& o = pg.operators[static_cast<size_t>(op)];
  int64_t bytes = compute_live_bytes(pg, done) + o.workspace_bytes;
  for (int b : o.outputs) bytes += pg.buffers[static_cast<size_t>(b)].bytes;
  return bytes;
}

int64_t compute_loop_peak(const PexGraph& pg, const OpSet& done, const PexLoop& loop, int64_t tile) {
  const std::vector<LoopBufferForm> form = classify_loop_buffers(pg, loop);
  OpSet after = done;
  for (int op : loop.ops) after.add(op);
  std::vector<int> position(pg.operators.size(), -1);
  for (size_t i = 0; i < loop.ops.size(); ++i) position[static_cast<size_t>(loop.ops[i])] = static_cast<int>(i);

  // The loop context: live at every call of the body.
  int64_t context = compute_live_bytes(pg, done);
  for (size_t i = 0; i < loop.ops.size(); ++i) {
    const PexOperator& op = pg.operators[static_cast<size_t>(loop.ops[i])];
    context += op.workspace_bytes;
    if (loop.rules[i] == PexRule::kAccumulate) context += op.accumulator_bytes;
  }
  std::vector<int64_t> partial(loop.ops.size(), 0);
  int64_t escaping = 0;  // post-concatenated buffers (live after the loop too)
  for (size_t b = 0; b < pg.buffers.size(); ++b) {
    const PexBuffer& buffer = pg.buffers[b];
    if (form[b] == LoopBufferForm::kPostConcat) {
      context += buffer.bytes;
      escaping += buffer.bytes;
    }
    if (form[b] != LoopBufferForm::kPartial) continue;
    const int first = position[static_cast<size_t>(buffer.producer)];
    int last = first;
    for (int c : buffer.consumers) last = std::max(last, position[static_cast<size_t>(c)]);
    for (int p = first; p <= last; ++p) partial[static_cast<size_t>(p)] += buffer.chunk_bytes(tile);
  }
  int64_t peak = context + *std::max_element(partial.begin(), partial.end());

  // kFinalize calls, in body order: accumulators of later ones still live,
  // outputs of earlier ones live if read later.
  struct Finalized {
    int64_t accumulator = 0, output = 0;
    bool in_place = false, read_later = false;
  };
  std::vector<Finalized> finals;
  for (size_t i = 0; i < loop.ops.size(); ++i) {
    if (loop.rules[i] != PexRule::kAccumulate) continue;
    const PexOperator& op = pg.operators[static_cast<size_t>(loop.ops[i])];
    const int out = op.outputs.at(0);
    finals.push_back({op.accumulator_bytes, pg.buffers[static_cast<size_t>(out)].bytes, op.finalize_in_place,
                      is_read_after(pg, after, out)});
  }
  if (finals.empty()) return peak;
  int64_t base = escaping;
  for (size_t b = 0; b < pg.buffers.size(); ++b) {
    const int id = static_cast<int>(b);
    if (is_made_by(pg, done, id) && is_read_after(pg, after, id)) base += pg.buffers[b].bytes;
  }
  for (size_t j = 0; j < finals.size(); ++j) {
    int64_t bytes = base;
    for (size_t i = 0; i < finals.size(); ++i) {
      const Finalized& f = finals[i];
      if (f.in_place) {
        if (i >= j || f.read_later) bytes += f.output;
        continue;
      }
      if (i >= j) bytes += f.accumulator;
      if (i == j || (i < j && f.read_later)) bytes += f.output;
    }
    peak = std::max(peak, bytes);
  }
  return peak;
}

}  // namespace tinyfit::partition
