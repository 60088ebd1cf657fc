// Pass fold-qdq: QDQ form -> quantized operators. DequantizeLinear -> float op
// -> QuantizeLinear becomes the op on the integer tensors: int8 weights with
// their (per-channel) scales, int32 bias with scale in_scale * w_scale
// (requantized when the model gave another scale), the output taking the
// Quantize's tensor and parameters. Data movement (Reshape, MaxPool, Concat,
// ...) folds the same way; a Dequantize is first moved after the reshapes it
// feeds, so DQ -> Reshape -> FC folds too. Ops with no trailing Quantize stay
// float behind their Dequantize. A Quantize of a Dequantize of integers folds
// too: to nothing with equal parameters, else to one requantizing Quantize.
// Requires: shapes inferred. Guarantees: every folded Q/DQ node is listed in
// exactly one node's source_nodes, in its input-model place.
#pragma once

#include "ir/graph.h"

namespace tinyfit::import {

void fold_qdq(ir::Graph& graph);

}  // namespace tinyfit::import
