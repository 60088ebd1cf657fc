// TFLite importer (schema v3 flatbuffers): full-integer int8, legacy uint8, float32.
#pragma once

#include <string>

#include "import/import_options.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::import {

Result<ir::Graph> import_tflite_file(const std::string& path, const ImportOptions& options);

}  // namespace tinyfit::import
