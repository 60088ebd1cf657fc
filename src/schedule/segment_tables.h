// What the searches over operator sets (exact_segment_search.h,
// beam_segment_search.h) need for one step, precomputed once per segment: the
// operator DAG, the bytes an operator adds, keeps and frees, and lower bounds
// on the memory of each operator's step that hold in every topological order.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/buffer_graph.h"

namespace tinyfit::schedule {

struct SegmentTables {
  int ops = 0;
  std::vector<std::vector<int>> preds;        // per operator: distinct producer operators, ascending
  std::vector<std::vector<int>> succs;        // per operator: distinct consumer operators, ascending
  std::vector<int64_t> output_bytes;          // per operator: all its outputs
  std::vector<int64_t> kept_output_bytes;     // per operator: outputs read later or model outputs
  std::vector<int64_t> workspace_bytes;       // per operator
  std::vector<std::vector<int>> freeable_inputs;  // per operator: its inputs that are not model outputs
  std::vector<std::vector<int>> consumers;    // per buffer (bg.buffers[b].consumers)
  std::vector<int64_t> buffer_bytes;          // per buffer
  // Per operator: bytes live during its step in every topological order: its
  // inputs, outputs and workspace, the always-live buffers, and every buffer
  // produced by one of its ancestors (or a segment input) and read by one of
  // its descendants (or a model output) -- produced before, freed after.
  std::vector<int64_t> step_bound_bytes;
  // Per operator: max of step_bound_bytes over it and its descendants. Every
  // operator not yet run is a descendant of (or is) a ready one, so the max of
  // this over the ready operators bounds every step still to come.
  std::vector<int64_t> bound_from_bytes;
  // Ready-operator candidates: for each lo, the operators v >= lo all of whose
  // producers are < lo (CSR: entering_ops[entering_begin[lo] .. entering_begin[lo + 1])).
  std::vector<int> entering_begin;
  std::vector<int> entering_ops;
  int64_t initial_live_bytes = 0;  // segment inputs someone reads or returns
  int64_t unread_input_bytes = 0;  // segment inputs nobody reads: live at step 0 only
};

// What: the tables above.
// Requires: the given order 0..n-1 of bg is topological.
// Guarantees: step_bound_bytes[v] <= the memory of v's step in every
// topological order. O(n^2 / 64 x (operators + buffer consumers)) time and
// n^2 / 8 bytes for the reachability sets.
SegmentTables build_segment_tables(const analysis::BufferGraph& bg);

// One step of a search: running `op` after the set of operators already run.
struct StepMemory {
  int64_t during_bytes = 0;      // the step's memory (analysis::compute_memory_profile)
  int64_t live_after_bytes = 0;  // live once it is done
};

// Requires: `after` = the set before plus op (ready before), `live_bytes` the
// memory live before, `first_step` whether nothing ran before.
StepMemory take_step(const SegmentTables& t, const uint64_t* after, int64_t live_bytes, int op, bool first_step);

// The ready operators of a set (not run, every producer run), ascending.
class ReadyOperators {
 public:
  explicit ReadyOperators(const SegmentTables& t);
  // Requires: `set` downward closed (every producer of a member is a member).
  const std::vector<int>& collect(const uint64_t* set);

 private:
  const SegmentTables& t_;
  std::vector<uint32_t> stamp_;  // per operator: the collect() call that listed it
  uint32_t epoch_ = 0;
  std::vector<int> ready_;
};

}  // namespace tinyfit::schedule
