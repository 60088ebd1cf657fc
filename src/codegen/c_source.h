// Small, deterministic pieces of C99 source text: identifiers made from
// model names, number literals that round-trip, and array initialisers laid
// out the same way on every run (STYLE.md rule 6: same input, same bytes).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ir/dtype.h"

namespace tinyfit::codegen {

// A C identifier from any text: [A-Za-z0-9_] kept, everything else '_', a
// leading digit prefixed with '_', lower case. "conv1/Relu:0" -> "conv1_relu_0".
std::string make_c_identifier(std::string_view text);

// A macro name from an identifier: upper case. "tinyfit_kws" -> "TINYFIT_KWS".
std::string make_macro_name(std::string_view identifier);

// Text for inside a /* ... */ comment from any name: escaped for display
// (support/display_text.h: no newlines or control bytes), with a space
// breaking every "*/" (which would end the comment and let a model file write
// C) and "/*" (-Wcomment). "a*/b" -> "a* /b".
std::string make_c_comment_text(std::string_view text);

// The C element type of a dtype: int8_t, uint8_t, int16_t, int32_t, float.
std::string_view c_element_type(ir::DType dtype);

// A float literal that reads back to exactly the same float ("0x1.8p-3f" for
// finite values; infinities as (1.0f/0.0f) are rejected by the caller).
std::string format_float_literal(float value);

// The elements of `bytes` (little-endian `element_c_type`: int8_t, uint8_t,
// int16_t, int32_t, uint32_t, uint64_t or float) as "{\n  1, 2, ...\n}", 16 per line
// for bytes, 8 per line otherwise.
std::string format_array_initializer(std::string_view element_c_type, std::span<const uint8_t> bytes);

}  // namespace tinyfit::codegen
