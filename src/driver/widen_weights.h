// The flash budget (`tinyfit compile --flash BYTES`): which Conv2Ds keep
// their weights widened to int16 (exec/wide_weights.h; the im2col __dsp
// GEMM then widens none) within it. Each widenable node costs flash
// (ceil(Cout / 2) x ceil(K / 4) x 8 bytes more) and saves the instructions
// the latency model (cost/) predicts for its calls with the _wide kernels
// instead of the int8 ones; the nodes are taken greedily by instructions
// saved per byte, skipping any that would overflow the budget (a knapsack
// whose items are a few dozen layers; the ILP of select_workspaces.h bounds
// SRAM, which widening does not change).
//
// What is counted: the const arrays of the emitted model.c (weights, biases,
// requantisation records, lookup tables: codegen::EmittedModel::constant_bytes),
// measured by emitting the plan. Not counted: the runtime kernels' code, the
// run function, the per-call parameter structs (tens of bytes each) and the
// caller's own code (docs/primitive_selection.md, "Flash").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost/cost_table.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct WidenedWeights {
  plan::Plan plan;               // the input plan with the chosen nodes' calls marked wide_weights
  int widened = 0;               // nodes widened
  int widenable = 0;             // nodes that could be (exec::find_widenable_nodes)
  int64_t const_bytes_before = 0;  // the emitted program's const arrays without widening
  int64_t const_bytes = 0;         // and with the chosen nodes widened
  double saved_instructions = 0;   // predicted
  std::vector<std::string> unmeasured;  // _wide kernels the table lacks (their nodes are not offered)
};

// The const array bytes of `plan`'s emitted model.c.
// Requires: plan placed, verify_plan(graph, plan) holds.
Result<int64_t> count_const_data_bytes(const ir::Graph& graph, const plan::Plan& plan);

// Requires: plan placed (widening changes no buffer), verify_plan holds, no
// call marked wide_weights yet.
// Guarantees: const_bytes <= flash_bytes whenever const_bytes_before <=
// flash_bytes (otherwise nothing is widened); every widened node's predicted
// saving is positive.
Result<WidenedWeights> widen_weights_within(const ir::Graph& graph, const plan::Plan& plan,
                                            const cost::CostTable& table, int64_t flash_bytes);

}  // namespace tinyfit::driver
