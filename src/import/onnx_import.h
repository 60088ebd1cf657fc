// ONNX importer (ai.onnx opsets 7..17) through Debian's onnx library.
//
// Layout: the IR is NHWC. A rank-4 graph input is NCHW in the model and NHWC
// in the graph, so the compiled model takes NHWC input (shape 1xHxWxC); an
// input the model itself transposes NHWC->NCHW right away is kept as given.
// Rank-4 outputs are NHWC too; other ranks keep ONNX order.
// Nodes the importer adds (layout transposes, the Add of a BatchNormalization,
// the Adds of a Sum) are marked Node::synthesized and named
// "<model node>/<role>". ONNX nodes keep their names (an unnamed one takes its
// first output's name, else its operator type; a repeated name gets "_2",
// "_3", ... in file order), and every one is listed exactly once in some
// node's source_nodes.
#pragma once

#include <string>

#include "import/import_options.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace onnx {
class ModelProto;
}

namespace tinyfit::import {

// Reads and imports a file. Errors name the file, node and problem.
Result<ir::Graph> import_onnx_file(const std::string& path, const ImportOptions& options);

// Imports an in-memory model (the zoo builds these). `source` names it in
// messages (a path or "zoo:NAME").
Result<ir::Graph> import_onnx_model(const onnx::ModelProto& model, const std::string& source,
                                    const ImportOptions& options);

}  // namespace tinyfit::import
