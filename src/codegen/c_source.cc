#include "codegen/c_source.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "support/diag.h"
#include "support/display_text.h"

namespace tinyfit::codegen {

std::string make_c_identifier(std::string_view text) {
  std::string id;
  id.reserve(text.size() + 1);
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    id += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_';
  }
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id.insert(id.begin(), '_');
  return id;
}

std::string make_macro_name(std::string_view identifier) {
  std::string name(identifier);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::string make_c_comment_text(std::string_view text) {
  std::string out;
  for (char c : escape_for_display(text)) {
    const bool closes = c == '/' && !out.empty() && out.back() == '*';
    const bool opens = c == '*' && !out.empty() && out.back() == '/';
    if (closes || opens) out += ' ';
    out += c;
  }
  return out;
}

std::string_view c_element_type(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kI8: return "int8_t";
    case ir::DType::kU8: return "uint8_t";
    case ir::DType::kI16: return "int16_t";
    case ir::DType::kI32: return "int32_t";
    case ir::DType::kF32: return "float";
    case ir::DType::kI64:
    case ir::DType::kBool: break;
  }
  TINYFIT_CHECK(false) << "no C element type for " << ir::dtype_name(dtype);
  return {};
}

std::string format_float_literal(float value) {
  TINYFIT_CHECK(std::isfinite(value)) << "non-finite float literal";
  char text[48];
  std::snprintf(text, sizeof text, "%af", static_cast<double>(value));
  return text;
}

namespace {

template <typename T>
T load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

std::string format_element(std::string_view type, const uint8_t* p) {
  if (type == "int8_t") return std::to_string(load<int8_t>(p));
  if (type == "uint8_t") return std::to_string(load<uint8_t>(p));
  if (type == "int16_t") return std::to_string(load<int16_t>(p));
  if (type == "uint32_t") return std::to_string(load<uint32_t>(p)) + "u";
  if (type == "uint64_t") return std::to_string(load<uint64_t>(p)) + "ull";
  if (type == "float") return format_float_literal(load<float>(p));
  TINYFIT_CHECK(type == "int32_t") << "element type " << type;
  const int32_t v = load<int32_t>(p);
  // INT32_MIN has no literal of type int: write it as an expression.
  return v == INT32_MIN ? "(-2147483647 - 1)" : std::to_string(v);
}

size_t element_size(std::string_view type) {
  if (type == "int8_t" || type == "uint8_t") return 1;
  if (type == "int16_t") return 2;
  if (type == "uint64_t") return 8;
  return 4;
}

}  // namespace

std::string format_array_initializer(std::string_view element_c_type, std::span<const uint8_t> bytes) {
  const size_t size = element_size(element_c_type);
  TINYFIT_CHECK(bytes.size() % size == 0) << bytes.size() << " bytes of " << element_c_type;
  const size_t per_line = size == 1 ? 16 : 8;
  std::string text = "{";
  const size_t count = bytes.size() / size;
  for (size_t i = 0; i < count; ++i) {
    text += i % per_line == 0 ? "\n  " : " ";
    text += format_element(element_c_type, bytes.data() + i * size);
    if (i + 1 < count) text += ",";
  }
  text += count == 0 ? "0}" : "\n}";  // C99 has no empty initialiser
  return text;
}

}  // namespace tinyfit::codegen
