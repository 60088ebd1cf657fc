// Element types of tensors.
#pragma once

#include <cstdint>
#include <string_view>

namespace tinyfit::ir {

enum class DType : uint8_t {
  kF32,
  kI8,
  kU8,   // legacy asymmetric quantization (TF1 QAT models)
  kI16,
  kI32,  // biases of quantized operators, accumulators
  kI64,  // shape tensors during import only
  kBool,
};

int64_t dtype_size_bytes(DType dtype);
std::string_view dtype_name(DType dtype);  // "f32", "i8", ...
bool is_quantized_dtype(DType dtype);     // i8, u8, i16 carry QuantParams

// Saturation range of a quantized type (e.g. [-128, 127] for i8).
int32_t dtype_min(DType dtype);
int32_t dtype_max(DType dtype);

}  // namespace tinyfit::ir
