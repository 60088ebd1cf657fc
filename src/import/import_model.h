// The one entry point from a MODEL argument to a verified graph:
//   path.onnx | path.tflite | zoo:NAME  ->  importer -> normalize -> shapes -> verify.
#pragma once

#include <string_view>

#include "import/import_options.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::import {

Result<ir::Graph> import_model(std::string_view model, const ImportOptions& options = {});

}  // namespace tinyfit::import
