#include "ir/dtype.h"

#include <limits>

#include "support/diag.h"

namespace tinyfit::ir {

int64_t dtype_size_bytes(DType dtype) {
  switch (dtype) {
    case DType::kF32: return 4;
    case DType::kI8: return 1;
    case DType::kU8: return 1;
    case DType::kI16: return 2;
    case DType::kI32: return 4;
    case DType::kI64: return 8;
    case DType::kBool: return 1;
  }
  TINYFIT_CHECK(false) << "unknown dtype";
  return 0;
}

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kF32: return "f32";
    case DType::kI8: return "i8";
    case DType::kU8: return "u8";
    case DType::kI16: return "i16";
    case DType::kI32: return "i32";
    case DType::kI64: return "i64";
    case DType::kBool: return "bool";
  }
  return "?";
}

bool is_quantized_dtype(DType dtype) {
  return dtype == DType::kI8 || dtype == DType::kU8 || dtype == DType::kI16;
}

int32_t dtype_min(DType dtype) {
  switch (dtype) {
    case DType::kI8: return -128;
    case DType::kU8: return 0;
    case DType::kI16: return -32768;
    case DType::kI32: return std::numeric_limits<int32_t>::min();
    default: break;
  }
  TINYFIT_CHECK(false) << "dtype_min of non-integer dtype " << dtype_name(dtype);
  return 0;
}

int32_t dtype_max(DType dtype) {
  switch (dtype) {
    case DType::kI8: return 127;
    case DType::kU8: return 255;
    case DType::kI16: return 32767;
    case DType::kI32: return std::numeric_limits<int32_t>::max();
    default: break;
  }
  TINYFIT_CHECK(false) << "dtype_max of non-integer dtype " << dtype_name(dtype);
  return 0;
}

}  // namespace tinyfit::ir
