// A tensor of the graph: an activation (lives in SRAM) or a constant (flash).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace tinyfit::ir {

using Shape = std::vector<int64_t>;
using TensorId = int32_t;
inline constexpr TensorId kNoTensor = -1;  // an absent optional input

// Affine quantization real = scale * (q - zero_point). One entry = per tensor;
// several = per channel along `axis` (weights of conv / depthwise conv).
struct QuantParams {
  std::vector<float> scale;
  std::vector<int32_t> zero_point;
  int32_t axis = 0;

  bool per_channel() const { return scale.size() > 1; }
  bool operator==(const QuantParams&) const = default;
};

struct Tensor {
  std::string name;
  DType dtype = DType::kF32;
  // Activations of rank 4 are NHWC (DESIGN.md: one canonical layout); rank 2 is
  // [batch, features].
  Shape shape;
  std::optional<QuantParams> quant;
  // Constants only: the little-endian payload, exactly num_elements * dtype size.
  bool is_constant = false;
  std::vector<uint8_t> data;

  int64_t num_elements() const;
  int64_t size_bytes() const;

  // Typed view of a constant's payload; checks dtype and size.
  template <typename T>
  std::span<const T> values() const;
  template <typename T>
  std::span<T> mutable_values();
};

// Row-major strides (in elements) of a shape.
Shape compute_strides(const Shape& shape);
std::string format_shape(const Shape& shape);  // "1x224x224x3"

}  // namespace tinyfit::ir
