// The normalisation pipeline (normalize.h lists the passes and why).
#include "import/normalize.h"

#include "import/drop_io_quantization.h"
#include "import/fold_batch_norm.h"
#include "import/fold_channel_shuffle.h"
#include "import/fold_padding.h"
#include "import/fold_qdq.h"
#include "import/fuse_activations.h"
#include "import/fuse_gelu.h"
#include "import/fuse_layer_norm.h"
#include "import/merge_identical_nodes.h"
#include "import/remove_identities.h"
#include "ir/op_decl.h"

namespace tinyfit::import {

Status normalize_graph(ir::Graph& graph, const ImportOptions& options) {
  // Reshape chains and no-op reshapes first: later patterns see real producers.
  remove_identities(graph);
  // Before fold_qdq: a Dequantize -> shuffle -> Quantize then folds like any
  // data movement (the rank-5 reshapes and transpose would not).
  fold_channel_shuffle(graph);
  // Float Conv -> Mul -> Add (an imported BatchNormalization) into the Conv.
  fold_batch_norm(graph);
  // Float patterns, before fold_qdq turns DQ -> Gelu -> Q into one quantized op.
  fuse_gelu(graph);
  fuse_layer_norm(graph);
  // Before fold_qdq: DQ -> Conv -> Relu -> Q needs the Relu inside the Conv.
  fuse_activations(graph);
  fold_qdq(graph);
  // Quantized ops made by fold_qdq may now take a following Clip.
  fuse_activations(graph);
  fold_padding(graph);
  // Last of the rewrites: the nodes it compares are in their final form.
  if (options.merge_identical_nodes) merge_identical_nodes(graph);
  if (!options.keep_io_quantization) drop_io_quantization(graph);
  remove_identities(graph);
  graph.remove_unused_tensors();
  return ir::infer_graph_shapes(graph);
}

}  // namespace tinyfit::import
