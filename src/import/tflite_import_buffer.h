// The TFLite importer on bytes already in memory (tests, fuzzers);
// import_tflite_file (tflite_import.h) reads the file and calls it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "import/import_options.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::import {

// Verifies and converts a TFLite flatbuffer (schema v3, subgraph 0).
// Guarantees: every tensor, buffer and opcode index was range-checked, every
// constant holds exactly its shape's bytes, operators appear in the model's
// order with explicit padding and fused activations; node names are unique.
// Output shapes are the declared TFLite shapes (ir::infer_graph_shapes then
// checks them). Errors carry `source` as the file and name the node and the
// TFLite operator.
Result<ir::Graph> import_tflite_buffer(std::span<const uint8_t> bytes, const std::string& source,
                                       const ImportOptions& options);

}  // namespace tinyfit::import
