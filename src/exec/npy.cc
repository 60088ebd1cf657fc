#include "exec/npy.h"

#include <cctype>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>

namespace tinyfit::exec {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;
constexpr size_t kMaxRank = 8;  // far beyond any tensor we handle; caps hostile headers

tl::unexpected<Diag> fail_file(const std::string& name, std::string message) {
  return tl::unexpected<Diag>(Diag{ExitCode::kBadInput, name, {}, {}, std::move(message)});
}

struct DescrEntry {
  const char* descr;  // without the byte-order character
  ir::DType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {"f4", ir::DType::kF32}, {"i1", ir::DType::kI8},  {"u1", ir::DType::kU8},
    {"i2", ir::DType::kI16}, {"i4", ir::DType::kI32}, {"i8", ir::DType::kI64},
    {"b1", ir::DType::kBool},
};

std::optional<ir::DType> parse_descr(const std::string& descr) {
  if (descr.size() != 3) return std::nullopt;
  const char order = descr[0];
  // '|' = byte order irrelevant (1-byte types); '=' = native, which is
  // little-endian on every host we build on.
  if (order != '<' && order != '|' && order != '=') return std::nullopt;
  for (const DescrEntry& e : kDescrs) {
    if (descr.compare(1, std::string::npos, e.descr) == 0) return e.dtype;
  }
  return std::nullopt;
}

std::string format_descr(ir::DType dtype) {
  for (const DescrEntry& e : kDescrs) {
    if (e.dtype == dtype) return (ir::dtype_size_bytes(dtype) == 1 ? "|" : "<") + std::string(e.descr);
  }
  TINYFIT_CHECK(false) << "no .npy descr for dtype " << ir::dtype_name(dtype);
  return {};
}

// A tiny recursive-descent reader for the header's Python dict literal:
// {'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  // Returns an error message, or empty on success.
  std::string parse() {
    skip_space();
    if (!consume('{')) return "header is not a dict";
    bool have_descr = false, have_order = false, have_shape = false;
    while (true) {
      skip_space();
      if (consume('}')) break;
      std::string key;
      if (!parse_string(key)) return "header dict key is not a string";
      skip_space();
      if (!consume(':')) return "header dict lacks ':' after '" + key + "'";
      skip_space();
      if (key == "descr") {
        if (!parse_string(descr_)) return "header 'descr' is not a string";
        have_descr = true;
      } else if (key == "fortran_order") {
        if (consume_word("True")) {
          fortran_order_ = true;
        } else if (consume_word("False")) {
          fortran_order_ = false;
        } else {
          return "header 'fortran_order' is not True or False";
        }
        have_order = true;
      } else if (key == "shape") {
        std::string error = parse_shape();
        if (!error.empty()) return error;
        have_shape = true;
      } else {
        return "header has unexpected key '" + key + "'";
      }
      skip_space();
      if (consume(',')) continue;
      skip_space();
      if (consume('}')) break;
      return "header dict is malformed after '" + key + "'";
    }
    if (!have_descr || !have_order || !have_shape) {
      return "header lacks one of 'descr', 'fortran_order', 'shape'";
    }
    skip_space();
    if (pos_ != text_.size()) return "header has trailing characters after the dict";
    return {};
  }

  const std::string& descr() const { return descr_; }
  bool fortran_order() const { return fortran_order_; }
  const ir::Shape& shape() const { return shape_; }

 private:
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool consume_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }
  bool parse_string(std::string& out) {
    if (pos_ >= text_.size()) return false;
    const char quote = text_[pos_];
    if (quote != '\'' && quote != '"') return false;
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return false;
    out = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return true;
  }
  std::string parse_shape() {
    if (!consume('(')) return "header 'shape' is not a tuple";
    while (true) {
      skip_space();
      if (consume(')')) return {};
      if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        return "header 'shape' has a non-integer dimension";
      }
      int64_t dim = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (dim > (std::numeric_limits<int64_t>::max() - 9) / 10) return "header 'shape' dimension overflows";
        dim = dim * 10 + (text_[pos_] - '0');
        ++pos_;
      }
      if (shape_.size() >= kMaxRank) return "header 'shape' has rank above " + std::to_string(kMaxRank);
      shape_.push_back(dim);
      skip_space();
      if (consume(',')) continue;
      skip_space();
      if (consume(')')) return {};
      return "header 'shape' is malformed";
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string descr_;
  bool fortran_order_ = false;
  ir::Shape shape_;
};

}  // namespace

Result<TensorData> parse_npy(const std::string& bytes, const std::string& name) {
  if (bytes.size() < kMagicBytes + 2 || bytes.compare(0, kMagicBytes, kMagic, kMagicBytes) != 0) {
    return fail_file(name, "not a .npy file (bad magic)");
  }
  const auto major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0;
  size_t header_start = 0;
  if (major == 1) {
    if (bytes.size() < 10) return fail_file(name, "truncated .npy header");
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return fail_file(name, "truncated .npy header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<uint8_t>(bytes[8 + i]);
    header_start = 12;
  } else {
    return fail_file(name, "unsupported .npy format version " + std::to_string(major));
  }
  if (header_len > bytes.size() - header_start) {
    return fail_file(name, "bad .npy header: length " + std::to_string(header_len) + " exceeds the file");
  }
  HeaderParser parser(std::string_view(bytes).substr(header_start, header_len));
  if (std::string error = parser.parse(); !error.empty()) {
    return fail_file(name, "bad .npy header: " + error);
  }
  if (parser.fortran_order()) {
    return fail_file(name, "fortran-order .npy arrays are not supported (expected C order)");
  }
  const std::optional<ir::DType> dtype = parse_descr(parser.descr());
  if (!dtype) {
    return fail_file(name, "unsupported .npy dtype '" + parser.descr() +
                               "' (expected little-endian f4, i1, u1, i2, i4, i8 or b1)");
  }
  const int64_t element_bytes = ir::dtype_size_bytes(*dtype);
  int64_t expected_bytes = element_bytes;
  for (int64_t dim : parser.shape()) {
    if (dim != 0 && expected_bytes > std::numeric_limits<int64_t>::max() / dim) {
      return fail_file(name, "bad .npy header: shape " + ir::format_shape(parser.shape()) + " overflows");
    }
    expected_bytes *= dim;
  }
  const size_t data_start = header_start + header_len;
  const auto actual_bytes = static_cast<int64_t>(bytes.size() - data_start);
  if (actual_bytes != expected_bytes) {
    return fail_file(name, "data length mismatch: shape " + ir::format_shape(parser.shape()) + " of " +
                               parser.descr() + " needs " + std::to_string(expected_bytes) +
                               " bytes, file has " + std::to_string(actual_bytes));
  }
  TensorData t;
  t.dtype = *dtype;
  t.shape = parser.shape();
  t.bytes.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start), bytes.end());
  return t;
}

std::string format_npy(const TensorData& tensor) {
  std::ostringstream dict;
  dict << "{'descr': '" << format_descr(tensor.dtype) << "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : tensor.shape) dict << dim << ", ";
  dict << "), }";
  std::string header = dict.str();
  // Pad with spaces so that magic + version + length + header + '\n' is a
  // multiple of 64 bytes (what numpy writes, so its readers can memory-map).
  const size_t unpadded = kMagicBytes + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  TINYFIT_CHECK(header.size() <= 0xFFFF) << "npy header too long";
  std::string out(kMagic, kMagicBytes);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xFF));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(tensor.bytes.data()), tensor.bytes.size());
  return out;
}

Result<TensorData> read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail_file(path, "cannot open .npy file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return fail_file(path, "cannot read .npy file");
  return parse_npy(bytes, path);
}

Status write_npy(const std::string& path, const TensorData& tensor) {
  TINYFIT_CHECK(static_cast<int64_t>(tensor.bytes.size()) ==
                tensor.num_elements() * ir::dtype_size_bytes(tensor.dtype))
      << "tensor bytes do not match its shape";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return fail_file(path, "cannot create .npy file");
  const std::string bytes = format_npy(tensor);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return fail_file(path, "cannot write .npy file");
  return {};
}

}  // namespace tinyfit::exec
