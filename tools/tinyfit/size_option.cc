#include "size_option.h"

#include <CLI/CLI.hpp>

#include "support/byte_size.h"

namespace tinyfit::tools {

CLI::Option* add_size_option(CLI::App& app, const std::string& name, int64_t& bytes,
                             const std::string& description) {
  // A transforming validator: CLI11 hands us the text and stores what we leave
  // in it, so the bound int64_t receives the byte count.
  CLI::Validator byte_size(
      [](std::string& text) -> std::string {
        auto parsed = parse_byte_size(text);
        if (!parsed) return parsed.error().message;
        text = std::to_string(*parsed);
        return {};
      },
      "", "byte size");
  return app.add_option(name, bytes, description + " (262144, 256KiB or 256KB)")
      ->transform(byte_size)
      ->type_name("SIZE");
}

}  // namespace tinyfit::tools
