// A model ready for the emitted-code checks (issue 5): imported, given the
// deterministic inputs (exec/golden_input.cc, seed 12345 for input 0 as in
// shared/models/golden/README.md), run once by the reference interpreter, and
// lowered with one technique to a placed, verified plan. Shared by the host
// and QEMU tests and by bench/mcu_latency.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "exec/tensor_data.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::mcu {

struct CheckedModel {
  ir::Graph graph;
  std::vector<exec::TensorData> inputs;     // one per graph input
  std::vector<exec::TensorData> reference;  // the oracle's outputs, one per graph output
};

// MODEL as the command line takes it (path or zoo:NAME).
Result<CheckedModel> load_checked_model(std::string_view model);

// The same for a graph built in code (tests' one-node graphs).
Result<CheckedModel> make_checked_model(ir::Graph graph, std::vector<exec::TensorData> inputs);

enum class Technique {
  kOrdinary,  // DESIGN.md's baseline: the model's order, whole operators, no in-place
  kPex,       // partial execution (plan/lower_pex.h), smallest peak
  kInplace,   // the best operator order with in-place merges (analysis/inplace.h)
  kOverlap,   // the best operator order, with or without in-place merges (the smaller arena), then
              // segment-level overlap and fused inverted bottlenecks (plan/lower_overlap.h)
  kMotes,     // the motes candidate of `tinyfit compile` at the default latency budget: row and
              // token loops, with row-loop overlaps when they win (driver/compile_candidate.h)
};
std::string_view technique_name(Technique technique);  // "ordinary", "pex", "inplace", "overlap", "motes"

// The technique's plan placed by greedy-by-size (overlap: "best", whose ILP
// and local search handle its rigid groups; motes: as the compile placed it)
// and checked by verify_plan.
// A technique not built yet fails with ExitCode::kBadCommandLine (its own
// "not built yet" message), so callers can skip and name it.
Result<plan::Plan> build_technique_plan(const ir::Graph& graph, Technique technique);

}  // namespace tinyfit::mcu

namespace tinyfit::mcu {

// Empty when `actual` holds exactly expected's bytes; otherwise the first
// differing element and how many differ.
std::string describe_byte_difference(const std::vector<uint8_t>& actual, const exec::TensorData& expected);

}  // namespace tinyfit::mcu
