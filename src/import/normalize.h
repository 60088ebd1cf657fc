// Import normalisation (issue 2): the small passes that turn an imported graph
// into the canonical IR every optimiser sees. Each pass is its own file, run
// in this order by normalize_graph (normalize.cc):
//   remove_identities        no-op Reshape / Transpose, Reshape chains collapsed
//   fold_batch_norm          Conv -> Mul/Add with per-channel constants (an imported
//                            BatchNormalization) into the convolution's weights and bias
//   fuse_gelu, fuse_layer_norm  GELU and layer norms written out op by op (exporters,
//                            TFLite's converter) into one kGelu / kLayerNorm, while float
//   fuse_activations         Relu / Relu6 / Clip into their producer (before fold_qdq,
//                            so DQ -> Conv -> Relu -> Q folds; again after it)
//   fold_qdq                 DequantizeLinear -> float op -> QuantizeLinear => quantized op
//   fold_padding             explicit Pad into the Conv / DepthwiseConv consuming it
//   merge_identical_nodes    a node computing what an earlier one computes (same op,
//                            attributes, inputs) dropped, its readers rewired
//   drop_io_quantization     Quantize on inputs / Dequantize on outputs (unless kept)
// The NCHW -> NHWC layout change is not a pass: the ONNX importer emits NHWC
// directly (onnx_context.h, "Layout tracking"). Passes work on the IR only, so
// TFLite imports go through the same list.
#pragma once

#include "import/import_options.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::import {

// Runs the passes in order. Requires: shapes inferred, graph verified.
// Guarantees: the same, plus the canonical form above.
Status normalize_graph(ir::Graph& graph, const ImportOptions& options);

}  // namespace tinyfit::import
