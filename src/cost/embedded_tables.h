// The cost tables of tables/*.json, compiled into the binary at build time
// (embed_tables.cmake), so `tinyfit` finds them wherever it is installed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tinyfit::cost {

struct EmbeddedTable {
  std::string_view target;               // the file's stem: "cortex-m4"
  std::vector<std::string_view> pieces;  // the JSON text, in pieces (one literal has a length cap)

  std::string text() const {
    std::string joined;
    for (std::string_view piece : pieces) joined += piece;
    return joined;
  }
};

// Sorted by target name.
const std::vector<EmbeddedTable>& list_embedded_tables();

}  // namespace tinyfit::cost
