// The IR's invariants, checked once after import (STYLE.md, "verify at the
// borders"): every tensor id in range; every node input is a constant, a graph
// input or the output of an earlier node (so node order is a valid execution
// order and the graph is acyclic); each tensor has at most one producer; every
// output shape agrees with its operator's declaration; constants hold exactly
// their bytes; quantized activations carry quantization parameters; node
// names and tensor names are unique.
#pragma once

#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::ir {

Status verify_graph(const Graph& graph);

}  // namespace tinyfit::ir
