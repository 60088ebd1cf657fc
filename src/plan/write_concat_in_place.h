// Plan pass write-concat-in-place (MOTES §4.3 Apply: "outputs written in
// place into the whole tensor, no Concat copies"): an operator whose output
// only a Concat reads writes it straight into its slice of the Concat's
// output buffer, and the Concat copies only the inputs still in buffers of
// their own. A NAS cell's Concat otherwise holds its inputs and its output
// at once (NASNet-A ImageNet: six 34,496-B states and their 206,976-B concat
// at the plan's peak).
//
// The rule is analysis/concat_in_place.h's, which the MOTES search scores
// its states with: what the graph must say (may_write_concat_input_in_place)
// and which inputs go in place (choose_concat_inputs_in_place: latest writer
// first, the count with the lowest (peak, bytes live at a plain step between
// the first writer and the Concat, sum over positions of live bytes), when
// below none), per Concat in program order; the plan's order does not change.
//
// What the plan must say besides: the Concat is a plain step (not in a loop)
// computing its whole output, its output view not swept; the input's buffer
// is a whole intermediate tensor (kActivation, not a model input or output),
// viewed whole and dense, used by exactly two calls, both plain steps: its
// writer (which computes a node whole, unfused, without a declared overlap,
// and does not read the buffer) and the Concat, which reads it once.
#pragma once

#include <string>

#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::plan {

struct ConcatInPlaceResult {
  Plan plan;
  int inputs_in_place = 0;  // Concat inputs written in place
  std::string note;         // one line for the candidate's note, empty when none
};

// Requires: verify_plan(graph, plan) holds; not placed.
// Guarantees: verify_plan holds; every call computes what it did (the
// writers' output views move into the Concat's output buffer; the Concat's
// views of those inputs are the same slices, which the binding does not copy,
// exec/bind_data_movement.cc); compute_plan_memory's peak is not above the
// input plan's; the buffers written in place are removed (the rest keep
// their order).
ConcatInPlaceResult write_concat_in_place(const ir::Graph& graph, Plan plan);

}  // namespace tinyfit::plan
