// Import normalisation (issue 2): the small passes that turn an imported graph
// into the canonical IR every optimiser sees. Each pass is its own file:
//   fold_layout_transposes   NCHW model -> NHWC activations, transposes folded
//   fold_batch_norm          BatchNormalization into the preceding convolution
//   fold_qdq                 DequantizeLinear -> float op -> QuantizeLinear => quantized op
//   fuse_activations         Relu / Relu6 / Clip into their producer
//   fold_padding             explicit Pad into the Conv / DepthwiseConv / pool consuming it
//   drop_io_quantization     Quantize on inputs / Dequantize on outputs (unless kept)
//   remove_identities        Identity / Dropout / no-op Reshape chains
#pragma once

#include "import/import_options.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::import {

// Runs the passes in order. Requires: shapes inferred, graph verified.
// Guarantees: the same, plus the canonical form above.
Status normalize_graph(ir::Graph& graph, const ImportOptions& options);

}  // namespace tinyfit::import
