// Lookup tables for int8 / uint8 unary operators, computed by running the
// reference interpreter on all 256 input values (what TFLite Micro does for
// several int8 ops): exact by construction, whatever the operator's
// fixed-point arithmetic, so the runtime kernel is one load per element
// (tf_x8_lut, tf_x8_dequantize_lut).
#pragma once

#include <vector>

#include "exec/tensor_data.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::exec {

// The node's output for each input byte b = 0..255 (the element whose byte
// is b: int8 reinterprets it), in that order, with the node's attributes,
// fused activation and the quantization of its input 0 and output 0.
// Requires: node has one input of dtype i8 or u8 and one output.
// Guarantees: 256 output elements; errors are the reference kernel's (a bad
// scale, missing quantization), naming the node.
Result<TensorData> run_node_on_every_byte(const ir::Graph& graph, const ir::Node& node);

}  // namespace tinyfit::exec
