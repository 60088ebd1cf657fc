#include "ir/tensor.h"

#include "support/diag.h"

namespace tinyfit::ir {

int64_t Tensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;  // shapes are validated (checked_math) at import
  return n;
}

int64_t Tensor::size_bytes() const { return num_elements() * dtype_size_bytes(dtype); }

namespace {
template <typename T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DType::kF32;
  if constexpr (std::is_same_v<T, int8_t>) return DType::kI8;
  if constexpr (std::is_same_v<T, uint8_t>) return DType::kU8;
  if constexpr (std::is_same_v<T, int16_t>) return DType::kI16;
  if constexpr (std::is_same_v<T, int32_t>) return DType::kI32;
  if constexpr (std::is_same_v<T, int64_t>) return DType::kI64;
}
}  // namespace

template <typename T>
std::span<const T> Tensor::values() const {
  TINYFIT_CHECK(dtype_of<T>() == dtype) << "tensor '" << name << "' is " << dtype_name(dtype);
  TINYFIT_CHECK(static_cast<int64_t>(data.size()) == size_bytes())
      << "tensor '" << name << "' holds " << data.size() << " bytes, expected " << size_bytes();
  return {reinterpret_cast<const T*>(data.data()), data.size() / sizeof(T)};
}

template <typename T>
std::span<T> Tensor::mutable_values() {
  TINYFIT_CHECK(dtype_of<T>() == dtype) << "tensor '" << name << "' is " << dtype_name(dtype);
  TINYFIT_CHECK(static_cast<int64_t>(data.size()) == size_bytes())
      << "tensor '" << name << "' holds " << data.size() << " bytes, expected " << size_bytes();
  return {reinterpret_cast<T*>(data.data()), data.size() / sizeof(T)};
}

template std::span<const float> Tensor::values<float>() const;
template std::span<const int8_t> Tensor::values<int8_t>() const;
template std::span<const uint8_t> Tensor::values<uint8_t>() const;
template std::span<const int16_t> Tensor::values<int16_t>() const;
template std::span<const int32_t> Tensor::values<int32_t>() const;
template std::span<const int64_t> Tensor::values<int64_t>() const;
template std::span<float> Tensor::mutable_values<float>();
template std::span<int8_t> Tensor::mutable_values<int8_t>();
template std::span<uint8_t> Tensor::mutable_values<uint8_t>();
template std::span<int16_t> Tensor::mutable_values<int16_t>();
template std::span<int32_t> Tensor::mutable_values<int32_t>();
template std::span<int64_t> Tensor::mutable_values<int64_t>();

Shape compute_strides(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

std::string format_shape(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += 'x';
    out += std::to_string(shape[i]);
  }
  return out;
}

}  // namespace tinyfit::ir
