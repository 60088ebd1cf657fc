// Parses memory sizes given by users: "262144", "256KiB", "256KB" (1000), "1MiB".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/diag.h"

namespace tinyfit {

Result<int64_t> parse_byte_size(std::string_view text);

// "1,505,280" style, for tables.
std::string format_thousands(int64_t value);

}  // namespace tinyfit
