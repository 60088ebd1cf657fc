#include "support/byte_size.h"

#include <array>
#include <cctype>
#include <charconv>
#include <utility>

#include "support/checked_math.h"

namespace tinyfit {

Result<int64_t> parse_byte_size(std::string_view text) {
  const std::string shown(text);
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) {
    return fail("size '" + shown + "' must start with a number (e.g. 262144, 256KiB, 256KB)",
                ExitCode::kBadCommandLine);
  }
  int64_t number = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || ptr != text.data() + digits) {
    return fail("size '" + shown + "' is out of range", ExitCode::kBadCommandLine);
  }
  std::string unit(text.substr(digits));
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::array<std::pair<std::string_view, int64_t>, 9> kUnits = {{
      {"", 1},
      {"b", 1},
      {"kb", 1000},
      {"kib", 1024},
      {"mb", 1000 * 1000},
      {"mib", 1024 * 1024},
      {"gb", 1000 * 1000 * 1000},
      {"gib", int64_t{1024} * 1024 * 1024},
      {"k", 1024},  // the common shorthand of linker scripts: 256K = 256KiB
  }};
  for (const auto& [name, factor] : kUnits) {
    if (unit == name) {
      auto bytes = checked_mul(number, factor);
      if (!bytes) return fail("size '" + shown + "' is out of range", ExitCode::kBadCommandLine);
      return *bytes;
    }
  }
  return fail("size '" + shown + "' has unknown unit '" + std::string(text.substr(digits)) +
                  "' (use B, KB, KiB, MB, MiB)",
              ExitCode::kBadCommandLine);
}

std::string format_thousands(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

}  // namespace tinyfit
