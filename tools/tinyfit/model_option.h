// The MODEL argument, --input-shape and --no-merge-identical, shared by every command that reads a
// model: parse them once, the same way, with the same messages.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "import/import_options.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace CLI {
class App;
}

namespace tinyfit::tools {

struct ModelOption {
  std::string model;                      // path.onnx | path.tflite | zoo:NAME
  std::vector<std::string> input_shapes;  // raw "NAME=1x3x224x224" values
  // --no-merge-identical: the graph as the model builds it, without import's
  // merge of identical operators (import/merge_identical_nodes.h), the graph
  // HMCOS and the papers schedule.
  bool keep_identical_nodes = false;
};

// Declares the positional MODEL, the repeatable --input-shape and the
// --no-merge-identical flag on `app`.
void add_model_option(CLI::App& app, ModelOption& option);

// "1x3x224x224" -> {1, 3, 224, 224}. Every dimension must be a positive
// integer; a bad value is a command-line error (exit 2).
Result<ir::Shape> parse_shape_text(std::string_view text);

// Fills `options.input_shapes` from the raw --input-shape values.
Status parse_input_shapes(const std::vector<std::string>& values, import::ImportOptions& options);

// Imports the model with the --input-shape values (and --no-merge-identical)
// applied on top of `options`;
// the importer's notices (options.note, unless set) go to stderr, one line each.
// A missing file or a directory is reported here, before any importer runs.
Result<ir::Graph> load_model(const ModelOption& option, import::ImportOptions options = {});

}  // namespace tinyfit::tools
