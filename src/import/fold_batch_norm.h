// Pass fold-batch-norm: a float Conv2D / DepthwiseConv2D followed by a Mul
// and/or Add with per-output-channel constants (how importers express an
// inference BatchNormalization: x * s + t) is rewritten so the convolution's
// weights and bias compute the same: w'[o] = w[o] * s[o], b' = b * s + t.
// A Mul/Add that cannot fold (no convolution before it, several readers)
// stays as it is: that is the "unfoldable BN becomes Mul + Add" form.
// Requires: shapes inferred. Guarantees: the graph computes the same function.
#pragma once

#include "ir/graph.h"

namespace tinyfit::import {

void fold_batch_norm(ir::Graph& graph);

}  // namespace tinyfit::import
