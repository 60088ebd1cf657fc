#include "model_option.h"

#include <charconv>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <CLI/CLI.hpp>

#include "import/import_model.h"

namespace tinyfit::tools {
namespace {

constexpr std::string_view kZooPrefix = "zoo:";

// A rank cap keeps a typo like "1x1x1x...x1" (or an attack) from reaching the
// importer; no operator of the IR goes beyond rank 6.
constexpr size_t kMaxRank = 8;

tl::unexpected<Diag> fail_command_line(std::string message) {
  return fail(std::move(message), ExitCode::kBadCommandLine);
}

// An --input-shape for an input the model does not have is a typo the user
// wants to hear about, not a silent no-op.
Status check_input_shape_names(const ir::Graph& graph, const import::ImportOptions& options) {
  for (const auto& [name, shape] : options.input_shapes) {
    bool found = false;
    std::string known;
    for (ir::TensorId id : graph.inputs) {
      found = found || graph.tensor(id).name == name;
      known += (known.empty() ? "'" : ", '") + graph.tensor(id).name + "'";
    }
    if (!found) {
      return fail_command_line("--input-shape names '" + name + "', but the inputs of " +
                               graph.source_path + " are " + known);
    }
  }
  return {};
}

}  // namespace

void add_model_option(CLI::App& app, ModelOption& option) {
  app.add_option("MODEL", option.model, "model file (.onnx, .tflite) or zoo:NAME")->required();
  app.add_option("--input-shape", option.input_shapes,
                 "fix the dimensions of a model input, NAME=1x3x224x224, in the model's own "
                 "layout (repeatable)")
      ->type_name("NAME=SHAPE")
      ->allow_extra_args(false);
  app.add_flag("--no-merge-identical", option.keep_identical_nodes,
               "keep operators that compute what another already computes (same operator, "
               "attributes and inputs) instead of merging them: the graph as the model builds it");
}

Result<ir::Shape> parse_shape_text(std::string_view text) {
  ir::Shape shape;
  size_t start = 0;
  while (true) {
    const size_t end = std::min(text.find('x', start), text.size());
    const std::string_view part = text.substr(start, end - start);
    int64_t dim = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), dim);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || dim <= 0) {
      return fail_command_line("shape '" + std::string(text) +
                               "': each dimension must be a positive integer, as in 1x3x224x224");
    }
    shape.push_back(dim);
    if (shape.size() > kMaxRank) {
      return fail_command_line("shape '" + std::string(text) + "' has more than " +
                               std::to_string(kMaxRank) + " dimensions");
    }
    if (end == text.size()) break;
    start = end + 1;
  }
  return shape;
}

Status parse_input_shapes(const std::vector<std::string>& values, import::ImportOptions& options) {
  for (const std::string& value : values) {
    // Split at the last '=': tensor names may contain '=' but shapes never do.
    const size_t eq = value.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      return fail_command_line("--input-shape '" + value + "': expected NAME=SHAPE, as in " +
                               "input=1x3x224x224");
    }
    TINYFIT_ASSIGN_OR_RETURN(ir::Shape shape, parse_shape_text(std::string_view(value).substr(eq + 1)));
    const std::string name = value.substr(0, eq);
    if (!options.input_shapes.emplace(name, std::move(shape)).second) {
      return fail_command_line("--input-shape given twice for input '" + name + "'");
    }
  }
  return {};
}

Result<ir::Graph> load_model(const ModelOption& option, import::ImportOptions options) {
  TINYFIT_RETURN_IF_ERROR(parse_input_shapes(option.input_shapes, options));
  options.merge_identical_nodes = options.merge_identical_nodes && !option.keep_identical_nodes;
  if (option.model.substr(0, kZooPrefix.size()) != kZooPrefix) {
    // Checked here so a missing file reads the same whatever the extension.
    std::error_code ec;
    const auto status = std::filesystem::status(option.model, ec);
    Diag diag;
    diag.file = option.model;
    if (!std::filesystem::exists(status)) {
      diag.message = "no such file";
      return tl::unexpected(diag);
    }
    if (std::filesystem::is_directory(status)) {
      diag.message = "is a directory, expected a .onnx or .tflite file";
      return tl::unexpected(diag);
    }
  }
  if (!options.note) {
    options.note = [](const Diag& note) { std::cerr << note.format("note") << std::endl; };
  }
  TINYFIT_ASSIGN_OR_RETURN(ir::Graph graph, import::import_model(option.model, options));
  TINYFIT_RETURN_IF_ERROR(check_input_shape_names(graph, options));
  return graph;
}

}  // namespace tinyfit::tools
