// The "execute" pass of `tinyfit compile`: proves the chosen plan correct by
// running it (DESIGN.md "Correctness is proved by running").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/tensor_data.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct Verification {
  bool executed = false;                 // the plan ran (false: --no-verify)
  bool verified = false;                 // outputs matched the reference
  std::optional<double> max_abs_error;   // over all outputs (quantized: in quanta)
  std::string note;                      // how it was checked, or why not
};

// Float32 outputs match when |plan - reference| <= kF32AbsTolerance +
// kF32RelTolerance * |reference| element by element: kernels may sum in
// another order than the reference's double accumulation (the property
// tests' bound, tests/property/plan_techniques_property_test.cc).
inline constexpr double kF32AbsTolerance = 1e-5;
inline constexpr double kF32RelTolerance = 1e-4;

// What: max |actual - expected| over the elements and whether every element
// matches (non-float dtypes: bit-exact; float32: the tolerance above).
// Requires: same dtype and shape.
struct OutputComparison {
  double max_abs_error = 0;
  bool matches = true;
  int64_t first_mismatch = -1;  // element index, -1 when it matches
};
OutputComparison compare_outputs(const exec::TensorData& actual, const exec::TensorData& expected);

// What: every output of a run against the reference interpreter's
// (compare_outputs); max_abs_error over all of them; executed and verified
// set, or verified false with the first difference in the note.
// Guarantees: with `exact` (32-bit accumulators), a difference is an internal
// error (our bug, never the user's).
Verification compare_with_reference(const ir::Graph& graph, const std::vector<exec::TensorData>& actual,
                                    const std::vector<exec::TensorData>& expected, bool exact);

// What: runs `plan` with exec::execute_plan (an arena of exactly
// plan.arena_bytes filled with poison, in its checking mode: every read of a
// byte another buffer wrote last is an internal error) and the reference
// interpreter on the
// deterministic input (exec::make_golden_input, seed + i for input i, as
// `tinyfit run`), and compares every output.
// Requires: plan placed and verify_plan holds.
// Guarantees: a kernel not built yet comes back as its exit-2 error; a
// mismatch with `exact` plans (32-bit accumulators) is an internal error (our
// bug); with reduced-precision accumulators it is reported as verified=false.
Result<Verification> verify_by_execution(const ir::Graph& graph, const plan::Plan& plan, uint32_t seed, bool exact);

}  // namespace tinyfit::driver
