#include "import/tflite_tensors.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "support/checked_math.h"

namespace tinyfit::import {
namespace {

struct DTypeInfo {
  ir::DType dtype = ir::DType::kF32;
  int64_t file_element_bytes = 4;  // element size in the file (2 for float16)
};

Result<DTypeInfo> convert_dtype(tflite::TensorType type) {
  switch (type) {
    case tflite::TensorType::FLOAT32: return DTypeInfo{ir::DType::kF32, 4};
    case tflite::TensorType::FLOAT16: return DTypeInfo{ir::DType::kF32, 2};
    case tflite::TensorType::INT8: return DTypeInfo{ir::DType::kI8, 1};
    case tflite::TensorType::UINT8: return DTypeInfo{ir::DType::kU8, 1};
    case tflite::TensorType::INT16: return DTypeInfo{ir::DType::kI16, 2};
    case tflite::TensorType::INT32: return DTypeInfo{ir::DType::kI32, 4};
    case tflite::TensorType::INT64: return DTypeInfo{ir::DType::kI64, 8};
    case tflite::TensorType::BOOL: return DTypeInfo{ir::DType::kBool, 1};
    default: break;
  }
  const char* name = tflite::EnumNameTensorType(type);
  return fail(std::string("element type ") + (*name ? name : std::to_string(static_cast<int>(type))) +
              " is not supported");
}

// The constant payload of a tensor: empty when it has none (an activation).
Result<std::span<const uint8_t>> find_buffer_bytes(const tflite::Model& model, uint32_t index,
                                                   std::span<const uint8_t> file) {
  const auto* buffers = model.buffers();
  const uint32_t count = buffers ? buffers->size() : 0;
  if (index >= count) {
    if (index == 0) return std::span<const uint8_t>{};  // no buffers table at all
    return fail("buffer index " + std::to_string(index) + " out of range (model has " +
                std::to_string(count) + " buffers)");
  }
  const tflite::Buffer* buffer = buffers->Get(index);
  if (!buffer) return std::span<const uint8_t>{};
  if (buffer->offset() > 1) {
    const uint64_t offset = buffer->offset();
    const uint64_t size = buffer->size();
    if (offset > file.size() || size > file.size() - offset) {
      return fail("buffer " + std::to_string(index) + " claims bytes [" + std::to_string(offset) +
                  ", " + std::to_string(offset + size) + ") of a " + std::to_string(file.size()) +
                  "-byte file");
    }
    return file.subspan(offset, size);
  }
  if (!buffer->data()) return std::span<const uint8_t>{};
  return std::span<const uint8_t>(buffer->data()->data(), buffer->data()->size());
}

Result<ir::Shape> convert_shape(const tflite::Tensor& t) {
  ir::Shape shape;
  if (!t.shape()) return shape;  // a scalar
  if (t.shape()->size() > kMaxTfliteRank) {
    return fail("rank " + std::to_string(t.shape()->size()) + " exceeds the maximum of " +
                std::to_string(kMaxTfliteRank));
  }
  for (int32_t d : *t.shape()) {
    if (d < 1) return fail("dimension " + std::to_string(d) + " must be at least 1");
    shape.push_back(d);
  }
  return shape;
}

// TFLite stores parameters on float tensors too (min/max for the converter);
// only integer tensors keep them.
Result<std::optional<ir::QuantParams>> convert_quant(const tflite::Tensor& t, ir::DType dtype,
                                                     const ir::Shape& shape, bool constant) {
  const auto* q = t.quantization();
  if (!q || dtype == ir::DType::kF32 || dtype == ir::DType::kBool || dtype == ir::DType::kI64) {
    return std::optional<ir::QuantParams>{};
  }
  if (q->details_type() != tflite::QuantizationDetails::NONE) {
    return fail("custom quantization is not supported");
  }
  const size_t scales = q->scale() ? q->scale()->size() : 0;
  const size_t zero_points = q->zero_point() ? q->zero_point()->size() : 0;
  if (scales == 0) return std::optional<ir::QuantParams>{};
  if (zero_points != 0 && zero_points != scales) {
    return fail(std::to_string(scales) + " scales but " + std::to_string(zero_points) + " zero points");
  }
  ir::QuantParams params;
  params.axis = q->quantized_dimension();
  // Converters copy the weights' quantized_dimension onto per-channel biases
  // (person_detect: axis 3 on a [8] bias); for a vector the only axis is 0.
  if (scales > 1 && shape.size() == 1) params.axis = 0;
  if (scales > 1) {
    if (params.axis < 0 || static_cast<size_t>(params.axis) >= shape.size() ||
        shape[params.axis] != static_cast<int64_t>(scales)) {
      return fail(std::to_string(scales) + " per-channel scales do not match axis " +
                  std::to_string(params.axis) + " of shape " + ir::format_shape(shape));
    }
  }
  for (size_t i = 0; i < scales; ++i) {
    const float scale = q->scale()->Get(static_cast<flatbuffers::uoffset_t>(i));
    // Activations need a positive scale. Constants only need a finite one:
    // mcunet-320kb has per-channel weight scales of 0, -0 and small negative
    // values (pruned or sign-folded channels) that TFLite Micro runs as given,
    // and kernels never read a bias scale.
    const bool valid = std::isfinite(scale) && (scale > 0 || constant);
    if (!valid) {
      return fail("activation quantization scale " + std::to_string(scale) + " must be positive and finite");
    }
    params.scale.push_back(scale);
    const int64_t zp = zero_points ? q->zero_point()->Get(static_cast<flatbuffers::uoffset_t>(i)) : 0;
    if (zp < ir::dtype_min(dtype) || zp > ir::dtype_max(dtype)) {
      return fail("zero point " + std::to_string(zp) + " outside the range of " +
                  std::string(ir::dtype_name(dtype)));
    }
    params.zero_point.push_back(static_cast<int32_t>(zp));
  }
  return std::optional<ir::QuantParams>{std::move(params)};
}

Result<ir::Tensor> convert_tensor(const tflite::Model& model, const tflite::Tensor& t,
                                  size_t index, std::span<const uint8_t> file) {
  ir::Tensor out;
  out.name = t.name() && t.name()->size() ? t.name()->str() : "tensor" + std::to_string(index);
  if (t.sparsity()) return fail("sparse tensors are not supported");
  TINYFIT_ASSIGN_OR_RETURN(DTypeInfo info, convert_dtype(t.type()));
  out.dtype = info.dtype;
  TINYFIT_ASSIGN_OR_RETURN(out.shape, convert_shape(t));
  auto elements = checked_product(out.shape);
  auto file_bytes = elements ? checked_mul(*elements, info.file_element_bytes) : std::nullopt;
  if (!file_bytes) return fail("shape " + ir::format_shape(out.shape) + " is too large");
  TINYFIT_ASSIGN_OR_RETURN(std::span<const uint8_t> data, find_buffer_bytes(model, t.buffer(), file));
  TINYFIT_ASSIGN_OR_RETURN(out.quant, convert_quant(t, out.dtype, out.shape, !data.empty()));
  if (data.empty()) {
    if (t.type() == tflite::TensorType::FLOAT16) {
      return fail("float16 activations are not supported (only float16 constants)");
    }
    return out;
  }
  if (static_cast<int64_t>(data.size()) != *file_bytes) {
    return fail("buffer holds " + std::to_string(data.size()) + " bytes, shape " +
                ir::format_shape(out.shape) + " of " + std::string(tflite::EnumNameTensorType(t.type())) +
                " needs " + std::to_string(*file_bytes));
  }
  out.is_constant = true;
  if (t.type() == tflite::TensorType::FLOAT16) {
    std::vector<float> widened(static_cast<size_t>(*elements));
    for (size_t i = 0; i < widened.size(); ++i) {
      widened[i] = convert_half_to_float(static_cast<uint16_t>(data[2 * i] | (data[2 * i + 1] << 8)));
    }
    return make_f32_constant(out.name, out.shape, widened);
  }
  // The file is little-endian, like every host and target we build for.
  out.data.assign(data.begin(), data.end());
  return out;
}

}  // namespace

Result<std::vector<ir::Tensor>> convert_tflite_tensors(const tflite::Model& model,
                                                       const tflite::SubGraph& subgraph,
                                                       std::span<const uint8_t> file) {
  std::vector<ir::Tensor> tensors;
  if (!subgraph.tensors()) return tensors;
  tensors.reserve(subgraph.tensors()->size());
  for (flatbuffers::uoffset_t i = 0; i < subgraph.tensors()->size(); ++i) {
    const tflite::Tensor* t = subgraph.tensors()->Get(i);
    if (!t) return fail("tensor " + std::to_string(i) + " is missing");
    auto tensor = convert_tensor(model, *t, i, file);
    if (!tensor) {
      const std::string name = t->name() ? t->name()->str() : std::to_string(i);
      return fail("tensor '" + name + "': " + tensor.error().message);
    }
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}

std::vector<float> dequantize_constant(const ir::Tensor& tensor) {
  TINYFIT_CHECK(tensor.is_constant && tensor.quant) << "dequantize '" << tensor.name << "'";
  const ir::QuantParams& q = *tensor.quant;
  const int64_t n = tensor.num_elements();
  // Per-channel: the channel of flat index i is (i / inner) % channels.
  int64_t inner = 1;
  int64_t channels = 1;
  if (q.per_channel()) {
    channels = tensor.shape[q.axis];
    for (size_t d = static_cast<size_t>(q.axis) + 1; d < tensor.shape.size(); ++d) inner *= tensor.shape[d];
  }
  auto value_at = [&](int64_t i) -> int64_t {
    switch (tensor.dtype) {
      case ir::DType::kI8: return tensor.values<int8_t>()[i];
      case ir::DType::kU8: return tensor.values<uint8_t>()[i];
      case ir::DType::kI16: return tensor.values<int16_t>()[i];
      case ir::DType::kI32: return tensor.values<int32_t>()[i];
      default: break;
    }
    TINYFIT_CHECK(false) << "cannot dequantize " << ir::dtype_name(tensor.dtype);
    return 0;
  };
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const size_t c = static_cast<size_t>(q.per_channel() ? (i / inner) % channels : 0);
    out[i] = q.scale[c] * static_cast<float>(value_at(i) - q.zero_point[c]);
  }
  return out;
}

ir::Tensor make_f32_constant(std::string name, ir::Shape shape, std::span<const float> values) {
  ir::Tensor t;
  t.name = std::move(name);
  t.dtype = ir::DType::kF32;
  t.shape = std::move(shape);
  t.is_constant = true;
  t.data.resize(values.size() * sizeof(float));
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

float convert_half_to_float(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1Fu;
  const uint32_t mantissa = half & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float32.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

}  // namespace tinyfit::import
