// Deterministic inputs for a whole graph, and a dtype-agnostic element
// reader: what `tinyfit run` feeds a model by default and what `tinyfit
// compile` checks a plan with, so both see the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "exec/tensor_data.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::exec {

// make_golden_input covers f32, i8, u8 and i16.
bool has_golden_input(ir::DType dtype);

// One make_golden_input per graph input, in order, input i with seed + i
// (input 0 matches shared/models/golden). An input of another dtype is an
// error naming it ("input 'x' is i32: no deterministic input for this dtype").
Result<std::vector<TensorData>> make_golden_inputs(const ir::Graph& graph, uint32_t seed);

// Element i of `data` as a double, whatever its dtype (for error reports and
// tolerances, not for arithmetic on int64 beyond 2^53).
double read_element_as_double(const TensorData& data, size_t i);

}  // namespace tinyfit::exec
