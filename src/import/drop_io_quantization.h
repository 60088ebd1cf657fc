// Pass drop-io-quantization: the compiled model takes and returns quantized
// tensors (DESIGN.md, accounting). A kQuantize reading a graph input (directly
// or through reshape aliases) is dropped and the input takes its dtype and
// parameters; a kDequantize writing a graph output is dropped and the output
// is its quantized input (renamed to the output's name).
// Requires: shapes inferred. Guarantees: the rest of the graph is unchanged.
#pragma once

#include "ir/graph.h"

namespace tinyfit::import {

void drop_io_quantization(ir::Graph& graph);

}  // namespace tinyfit::import
