// The knobs of `tinyfit compile` as plain data: which techniques may build
// candidate plans, the memory budget, the searches' names and limits, and
// what happens to the chosen plan (execution check, C emission). tools/ fills
// them from the command line; the driver never sees a flag.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "support/deadline.h"
#include "support/diag.h"

namespace tinyfit::driver {

// The techniques that may add candidates on top of the ordinary plan (which
// is always built: it is the baseline every paper compares against).
struct TechniqueSet {
  bool order = true;    // the --order algorithm's operator order
  bool inplace = true;  // in-place merges (analysis/inplace.h)
  bool pex = true;      // partial-execution loops (plan/lower_pex.h)
  bool motes = true;    // row loops found by MOTES's beam search (plan/lower_motes.h)
  bool overlap = true;  // segment-level overlap and fused inverted bottlenecks (plan/lower_overlap.h)
};

// What: "order,inplace,pex,motes,overlap" (any subset, any order) or "none".
// Guarantees: an empty item, an unknown name or a repeated name is a
// command-line error (exit 2) that lists the valid names.
Result<TechniqueSet> parse_technique_list(std::string_view list);

struct CompileOptions {
  std::optional<int64_t> sram_bytes;  // --sram: the arena must fit in it
  // --flash: the emitted program's const arrays must fit in it, and
  // convolutions may keep widened weights within it (widen_weights.h).
  // Without it no weights are widened: the program's flash is what the
  // model's own weights need, never more.
  std::optional<int64_t> flash_bytes;
  TechniqueSet techniques;
  std::string order = "best";        // schedule::find_order_algorithm name
  std::string placement = "best";    // plan::find_placement_algorithm name
  std::string target = "cortex-m4";  // the cost table (cost::find_cost_table) latency is predicted with
  int accumulator_bits = 32;         // PEX accumulators: 32 (exact), 16 or 8
  // --latency-budget: δ, the predicted latency over ordinary execution's that
  // a motes plan may have (partition::kNoLatencyBudget: the smallest memory).
  // 1.05, MOTES's own evaluation setting: a user who names no budget gets at
  // most 5% more predicted instructions, never a silently slower plan.
  double latency_budget = 1.05;
  bool execute = true;               // run the plan against the reference (false: --no-verify)
  // Give conv calls the workspaces of faster primitives where memory allows
  // (select_workspaces.h); false keeps every candidate without them.
  bool select_primitives = true;
  uint32_t seed = 12345;             // x_0 of the deterministic input (as `tinyfit run`)
  std::string emit_dir;              // non-empty: emit C99 for the chosen plan here
  std::string emit_name;             // C prefix tinyfit_<name>; empty: the model's file stem or zoo name
  Deadline deadline;                 // --time-limit, polled by the order and PEX searches
  // Long searches report (stage, fraction done); the library never prints.
  std::function<void(std::string_view stage, double fraction)> progress;
};

}  // namespace tinyfit::driver
