// Pass merge-identical-nodes (common-subexpression elimination): a node that
// computes what an earlier node already computes - the same operator, the
// same attributes and fused activation, the same input tensors, and outputs
// of the same dtype, shape and quantisation - is dropped, and its readers
// read the earlier node's outputs. Every IR operator is a pure function of
// its inputs and attributes, so the graph computes the same values, bit for
// bit. NAS cells are where it matters: several branches of a cell each apply
// their own ReLU to the same tensor (NASNet-A: three of cell 1's five), and
// merged, one ReLU's rows serve all three branches in a row loop
// (docs/row_loops.md, "Identical operators").
// Requires: shapes inferred. Guarantees: no two nodes are identical in that
// sense unless one's output is a graph output (kept, so every graph output
// keeps its own tensor); a dropped node merges into the first (earliest)
// identical kept node; the dropped node's source nodes join the kept one's,
// after its own (the dropped node read the same inputs, and its readers come
// after the kept node).
#pragma once

#include "ir/graph.h"

namespace tinyfit::import {

void merge_identical_nodes(ir::Graph& graph);

}  // namespace tinyfit::import
