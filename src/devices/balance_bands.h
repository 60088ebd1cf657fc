// balance-bands: which rows of the boundary each device computes under
// --partition rows (driver/compile_device_rows.h). Even shares leave the
// devices inside with a halo on both sides of their band and the two at
// the borders with one, so the inner bands of the model input are the
// largest (on MCUNet-320KB cut after 20 operators on 4 devices, the inner
// devices' bands of the image are 64,416 and 60,720 bytes, the outer ones'
// 39,072 and 46,992). Greedy, not optimal: moves one row at a time from the
// device whose band of the model inputs is largest to its smaller
// neighbour while the bands, largest first, shrink; the model inputs stand in for
// the plans' arenas, which only compile_model knows.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ir/op_decl.h"
#include "support/diag.h"

namespace tinyfit::devices {

// Per device, per boundary tensor (find_head_boundary), its share of the
// rows: contiguous, in device order, every share non-empty, together the
// whole tensor. Boundary tensors of different heights keep even shares
// (split_extent).
// Requires: check_head(graph, head_nodes, parts) holds.
Result<std::vector<std::vector<ir::Range>>> balance_row_shares(const ir::Graph& graph, int head_nodes, int parts);

}  // namespace tinyfit::devices
