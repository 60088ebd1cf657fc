// Options that take a memory size: 262144, 256KiB, 256KB (DESIGN.md; KB = 1000
// bytes, KiB = 1024). The value is converted while CLI11 parses, so a bad size
// is a parse error like any other (exit 2) and the command sees plain bytes.
#pragma once

#include <cstdint>
#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tinyfit::tools {

CLI::Option* add_size_option(CLI::App& app, const std::string& name, int64_t& bytes,
                             const std::string& description);

}  // namespace tinyfit::tools
