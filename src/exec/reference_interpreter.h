// The reference interpreter: the oracle every optimised plan is checked
// against. Simple and obviously right beats fast: one whole operator at a time,
// each tensor in its own buffer, float32 in float and quantized operators with
// TFLite's integer semantics (per-channel weight scales, int32 bias,
// gemmlowp-style fixed-point requantization with double rounding, saturation),
// int8 and uint8.
#pragma once

#include <vector>

#include "exec/tensor_data.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::exec {

// Runs the graph on `inputs` (one per graph input, in order, matching dtype and
// shape; a mismatch is a user error naming the input). Returns one TensorData
// per graph output.
Result<std::vector<TensorData>> run_reference(const ir::Graph& graph,
                                              const std::vector<TensorData>& inputs);

// Deterministic pseudo-random input for a graph input (the generator of
// shared/models/golden/README.md: x_{k+1} = (1103515245 x_k + 12345) mod 2^31,
// x_0 = 12345, byte = (x >> 16) & 0xFF; int8 reinterprets the byte, uint8
// takes it, float32 uses byte / 255). `seed` replaces x_0.
TensorData make_golden_input(ir::DType dtype, const ir::Shape& shape, uint32_t seed = 12345);

}  // namespace tinyfit::exec
