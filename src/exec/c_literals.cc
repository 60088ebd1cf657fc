#include "exec/c_literals.h"

#include <cmath>
#include <cstdio>

#include "support/diag.h"

namespace tinyfit::exec {

std::string format_c_float(float value) {
  TINYFIT_CHECK(std::isfinite(value)) << "no C99 literal for " << value;
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
  std::string literal(text);
  // "3" + "f" is not a float literal; "3.0f" is.
  if (literal.find_first_of(".e") == std::string::npos) literal += ".0";
  return literal + "f";
}

std::string format_c_int_array(std::span<const int32_t> values) {
  std::string text = "{";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "}";
}

std::string format_c_byte_array(std::span<const uint8_t> values) {
  std::string text = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", values[i]);
    text += (i ? ", " : "") + std::string(byte);
  }
  return text + "}";
}

}  // namespace tinyfit::exec
