// ONNX importer (ai.onnx opsets 7..17) through Debian's onnx library.
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
