#include "driver/compile_verify.h"

#include <algorithm>
#include <cmath>

#include "exec/golden_inputs.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"

namespace tinyfit::driver {

OutputComparison compare_outputs(const exec::TensorData& actual, const exec::TensorData& expected) {
  TINYFIT_CHECK(actual.dtype == expected.dtype && actual.shape == expected.shape)
      << "plan output " << ir::format_shape(actual.shape) << " vs reference " << ir::format_shape(expected.shape);
  OutputComparison result;
  const auto n = static_cast<size_t>(actual.num_elements());
  for (size_t i = 0; i < n; ++i) {
    const double a = exec::read_element_as_double(actual, i);
    const double e = exec::read_element_as_double(expected, i);
    const double error = std::abs(a - e);
    const bool ok = actual.dtype == ir::DType::kF32 ? error <= kF32AbsTolerance + kF32RelTolerance * std::abs(e)
                                                    : a == e;
    // NaN never matches and makes the error infinite rather than hiding it.
    result.max_abs_error = std::max(result.max_abs_error, std::isnan(error) ? INFINITY : error);
    if (!ok && result.matches) {
      result.matches = false;
      result.first_mismatch = static_cast<int64_t>(i);
    }
  }
  return result;
}

Verification compare_with_reference(const ir::Graph& graph, const std::vector<exec::TensorData>& actual,
                                    const std::vector<exec::TensorData>& expected, bool exact) {
  TINYFIT_CHECK(actual.size() == expected.size() && actual.size() == graph.outputs.size())
      << "plan gave " << actual.size() << " outputs, reference " << expected.size();
  Verification v;
  v.executed = true;
  v.verified = true;
  v.max_abs_error = 0.0;
  for (size_t o = 0; o < actual.size(); ++o) {
    const OutputComparison c = compare_outputs(actual[o], expected[o]);
    v.max_abs_error = std::max(*v.max_abs_error, c.max_abs_error);
    if (c.matches) continue;
    const std::string where = "output '" + graph.tensor(graph.outputs[o]).name + "' element " +
                              std::to_string(c.first_mismatch) + ": plan " +
                              std::to_string(exec::read_element_as_double(actual[o], static_cast<size_t>(c.first_mismatch))) +
                              ", reference " +
                              std::to_string(exec::read_element_as_double(expected[o], static_cast<size_t>(c.first_mismatch)));
    // An exact plan that computes something else is our bug, never the user's.
    TINYFIT_CHECK(!exact) << "the plan differs from the reference interpreter: " << where;
    if (v.verified) v.note = "reduced-precision accumulators: " + where;
    v.verified = false;
  }
  return v;
}

Result<Verification> verify_by_execution(const ir::Graph& graph, const plan::Plan& plan, uint32_t seed, bool exact) {
  Result<std::vector<exec::TensorData>> golden = exec::make_golden_inputs(graph, seed);
  if (!golden) {
    Diag diag = golden.error();
    diag.message += " to check the plan with (use --no-verify)";
    return tl::unexpected<Diag>(std::move(diag));
  }
  const std::vector<exec::TensorData>& inputs = *golden;
  exec::ExecuteOptions options;
  options.check_overwrites = true;  // every read checked against its bytes' last writer
  TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> actual, exec::execute_plan(graph, plan, inputs, options));
  TINYFIT_ASSIGN_OR_RETURN(const std::vector<exec::TensorData> expected, exec::run_reference(graph, inputs));
  Verification v = compare_with_reference(graph, actual, expected, exact);
  if (v.verified) {
    v.note = "executed in an arena of exactly " + std::to_string(plan.arena_bytes) +
             " bytes filled with poison, every read checked against the last writer of its bytes; outputs match "
             "the reference interpreter";
  }
  return v;
}

}  // namespace tinyfit::driver
