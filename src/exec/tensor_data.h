// A host-side tensor value: dtype, shape and little-endian bytes. What the
// reference interpreter consumes and produces, and what .npy files hold.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "ir/dtype.h"
#include "ir/tensor.h"
#include "support/diag.h"

namespace tinyfit::exec {

struct TensorData {
  ir::DType dtype = ir::DType::kF32;
  ir::Shape shape;
  std::vector<uint8_t> bytes;

  int64_t num_elements() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
  }
  template <typename T>
  std::span<const T> values() const {
    TINYFIT_CHECK(bytes.size() % sizeof(T) == 0) << "misaligned tensor data";
    return {reinterpret_cast<const T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
  template <typename T>
  std::span<T> mutable_values() {
    TINYFIT_CHECK(bytes.size() % sizeof(T) == 0) << "misaligned tensor data";
    return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
  }
  static TensorData zeros(ir::DType dtype, const ir::Shape& shape) {
    TensorData t{dtype, shape, {}};
    t.bytes.assign(static_cast<size_t>(t.num_elements() * ir::dtype_size_bytes(dtype)), 0);
    return t;
  }
};

}  // namespace tinyfit::exec
