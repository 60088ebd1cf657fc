// Pass fold-padding: a kPad of the rows and cols only, whose single reader is
// a Conv2D / DepthwiseConv2D, becomes that convolution's padding (DESIGN.md:
// explicit padding is folded into the operator that consumes it). Only a pad
// value of real 0 folds, which for quantized tensors is the zero point.
// Requires: NHWC rank-4 convolution inputs. Guarantees: such pads are gone.
#pragma once

#include "ir/graph.h"

namespace tinyfit::import {

void fold_padding(ir::Graph& graph);

}  // namespace tinyfit::import
