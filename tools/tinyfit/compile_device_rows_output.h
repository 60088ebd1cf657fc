// The text and JSON reports of `tinyfit compile --devices N --partition rows`
// (driver/compile_device_rows.h). Thin, as the rest of tools/.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "driver/compile_device_rows.h"
#include "ir/graph.h"

namespace tinyfit::tools {

void print_device_rows_text(std::ostream& out, const ir::Graph& graph, const driver::RowsCompileReport& report);
nlohmann::json make_device_rows_json(const ir::Graph& graph, const driver::RowsCompileReport& report);

}  // namespace tinyfit::tools
