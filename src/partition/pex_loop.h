// One partial-execution loop (PEX §3.1) and what it costs in memory.
//
// A loop runs a set of operators one chunk of `extent` channels at a time.
// Each operator follows one rule, fixed by where its inputs come from:
//  - Partial continue (C-type): chunk of its inputs -> same chunk of its output;
//  - Generate (A-type whose input comes from before the loop): whole input ->
//    chunk of output channels;
//  - Accumulate (A-type whose input is a chunk made in the loop): adds the
//    chunk's contribution to an accumulator; a kFinalize call after the loop
//    turns it into the output.
// Buffers follow from the rules: a tensor made in the loop whose readers are
// all in it is partial (t^P, one chunk, live only between its uses); one that
// escapes the loop is written chunk by chunk into its full buffer
// (Post-concatenate); a tensor made before the loop is read whole (Generate)
// or chunk by chunk (Slice) from its full buffer.
//
// Memory accounting (plan/plan_memory.h, PEX's LOCALPMU with the loop context
// C): every full buffer the loop touches, every accumulator and workspace, and
// every buffer live across the loop, is live at every call of the body; partial
// buffers only between their producer and last reader in the body. The
// kFinalize calls follow the loop, one position each, in body order.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "partition/pex_graph.h"

namespace tinyfit::partition {

// Operators done so far, as a bitset over operator indices.
class OpSet {
 public:
  OpSet() = default;
  explicit OpSet(size_t ops) : words_((ops + 63) / 64, 0) {}
  bool has(int op) const { return (words_[static_cast<size_t>(op) / 64] >> (op % 64)) & 1u; }
  void add(int op) { words_[static_cast<size_t>(op) / 64] |= uint64_t{1} << (op % 64); }
  int count() const;
  const std::vector<uint64_t>& words() const { return words_; }
  bool operator==(const OpSet&) const = default;

 private:
  std::vector<uint64_t> words_;
};

struct OpSetHash {
  size_t operator()(const OpSet& set) const;
};

enum class PexRule { kFullContinue, kPartialContinue, kGenerate, kAccumulate };

struct PexLoop {
  int64_t extent = 0;
  std::vector<int> ops;        // body order: ascending operator index (topological)
  std::vector<PexRule> rules;  // per op
};

// How a loop holds each buffer it touches.
enum class LoopBufferForm {
  kNone,         // not touched by the loop
  kPartial,      // made and fully consumed in the loop: one chunk
  kPostConcat,   // made in the loop, read after it: full buffer, written by chunks
  kAccumulated,  // output of an Accumulate operator: made by kFinalize after the loop
  kInput,        // made before the loop, read in it (whole or by slices)
};

// The loop of operator set `members` (ascending) after `done`, if PEX's rules
// allow it (pex_loop_search.h lists the rules), decided from the rules
// directly rather than by growing it. O(members x inputs + buffers).
std::optional<PexLoop> make_loop_if_valid(const PexGraph& pg, const OpSet& done, const std::vector<int>& members);

// Form of every buffer for `loop` (indexed by buffer).
std::vector<LoopBufferForm> classify_loop_buffers(const PexGraph& pg, const PexLoop& loop);

// Bytes live after `done` finished, before anything else runs: buffers made by
// `done` (or model inputs) that a later operator reads, or model outputs.
int64_t compute_live_bytes(const PexGraph& pg, const OpSet& done);

// Peak bytes while operator `op` runs whole after `done` (Full continue).
int64_t compute_whole_op_peak(const PexGraph& pg, const OpSet& done, int op);

// Peak bytes over the loop's body and its kFinalize calls, run after `done`,
// with partial buffers of `tile` channels.
// Requires: `loop` is valid after `done` (pex_loop_search.h builds only such loops).
int64_t compute_loop_peak(const PexGraph& pg, const OpSet& done, const PexLoop& loop, int64_t tile = 1);

}  // namespace tinyfit::partition
