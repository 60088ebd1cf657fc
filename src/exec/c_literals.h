// C99 spellings of prepared constants, for the field values a binding passes
// to CallEmitter::define_struct. Generated code must hold exactly the values
// run() used, so floats are spelled to round-trip bit for bit.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tinyfit::exec {

// "0.00392156886f", "3.0f": nine significant digits round-trip any finite
// float. Requires: value finite (generated code does not include <math.h>).
std::string format_c_float(float value);

// "{1, -2, 3}" and "{0x00, 0x3f}": initializers of array fields.
std::string format_c_int_array(std::span<const int32_t> values);
std::string format_c_byte_array(std::span<const uint8_t> values);

}  // namespace tinyfit::exec
