// Concat inputs written in place (MOTES §4.3 Apply: "outputs written in place
// into the whole tensor, no Concat copies"): an operator whose output only a
// Concat reads writes it straight into its slice of the Concat's output, so
// the input needs no buffer of its own and the Concat copies nothing for it;
// the output's buffer is then live from that writer on.
//
// One rule, two users: plan/write_concat_in_place.h rewrites a plan with it,
// and the MOTES search (partition/motes_search.h) scores its states with
// write_concat_inputs_in_place below, so that the search sees the peak the
// lowering will have.
//
//  - may_write_concat_input_in_place: what the graph must say (a plain
//    Concat, no fused activation; the input read once, of the output's dtype
//    and quantisation, so the Concat is a plain copy of it and writing it in
//    place is bit-exact). Each user adds what its own level must say: its
//    buffer is read by the Concat alone, made whole by one operator that
//    runs whole (no loop), and is no model input or output.
//  - choose_concat_inputs_in_place: which of a Concat's candidates go in
//    place. The slice's buffer is live from its first writer on, so an input
//    made long before the Concat holds the whole output that long: the
//    candidates are taken latest writer first, and the count with the lowest
//    ConcatInPlaceScore is kept when it is below taking none.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "ir/graph.h"

namespace tinyfit::analysis {

// Requires: `input` < concat.inputs.size().
bool may_write_concat_input_in_place(const ir::Graph& graph, const ir::Node& concat, size_t input);

// Lower is better: the peak, then the most bytes live at a step that runs
// whole (no loop) between the Concat's first candidate writer and the Concat,
// then the sum of live bytes over all steps (or positions).
struct ConcatInPlaceScore {
  int64_t peak_bytes = 0;
  int64_t local_peak_bytes = 0;
  int64_t sum_bytes = 0;

  auto operator<=>(const ConcatInPlaceScore&) const = default;
};

// `writer_steps`: per candidate, the step of its writer. `score(chosen)`: the
// score with the candidates at `chosen` (indices into writer_steps) in place.
// Returns the chosen candidates, latest writer first (ties by index); empty
// when no count scores below none. Calls score n + 1 times.
std::vector<size_t> choose_concat_inputs_in_place(
    std::span<const int> writer_steps, const std::function<ConcatInPlaceScore(std::span<const size_t>)>& score);

struct ConcatInPlaceEstimate {
  // The buffer graph with the chosen inputs in place (an estimate for memory
  // profiles): an input written in place keeps its index with 0 bytes, and
  // the Concat's output buffer takes its earliest in-place writer as
  // producer (a profile starts a buffer's life at its producer's step).
  BufferGraph graph;
  std::vector<int64_t> step_bytes;  // the caller's step bytes with the inputs in place
  int inputs_in_place = 0;
};

// The model of plan/write_concat_in_place.h on a buffer graph and an order:
// Concats in order, each choosing with choose_concat_inputs_in_place over
// `step_bytes`, the bytes the caller counts at each step of `order`:
// compute_memory_profile's execution bytes, less what it knows the plan
// shares there (the search: row-loop overlaps). An operator with node -1 (a
// contracted loop) neither writes in place nor is a Concat.
// Requires: bg built from `graph` (possibly contracted, without in-place
// merges); `order` topological for bg; one step_bytes per step.
// Guarantees: max(result.step_bytes) <= max(step_bytes); result.step_bytes
// is step_bytes changed as compute_memory_profile(result.graph, order)'s
// execution bytes change; deterministic. O(concats x (steps + candidates^2 x
// window steps)).
ConcatInPlaceEstimate write_concat_inputs_in_place(const ir::Graph& graph, BufferGraph bg, const Order& order,
                                                   std::vector<int64_t> step_bytes);

}  // namespace tinyfit::analysis
