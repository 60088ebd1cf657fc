// Pass remove-identities: drops reshapes that keep the shape and transposes
// with the identity permutation, and collapses chains of reshapes.
// Requires: shapes inferred. Guarantees: no kReshape has a kReshape producer
// with a single consumer; no no-op kReshape / kTranspose remains unless it
// connects a graph input directly to a graph output. Folded names join the
// producer (or, for a graph input, the first consumer).
#pragma once

#include "ir/graph.h"

namespace tinyfit::import {

void remove_identities(ir::Graph& graph);

}  // namespace tinyfit::import
