// Reading ONNX tensors (initializers, Constant values) and attributes, and the
// small constant transforms the converters need (permute, reshape, dequantize).
// Every length read from the file is checked against its shape first.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>

#include "import/onnx_context.h"
#include "support/checked_math.h"

namespace tinyfit::import::onnx_detail {
namespace {

constexpr size_t kMaxRank = 8;
// Constants beyond 1 GiB cannot be microcontroller weights; refusing them
// early also keeps a hostile ConstantOfShape from exhausting host memory.
constexpr int64_t kMaxConstantBytes = int64_t{1} << 30;

template <typename T>
void append_le(std::vector<uint8_t>& out, T v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

double element_as_double(ir::DType dtype, const uint8_t* p) {
  switch (dtype) {
    case ir::DType::kF32: return load<float>(p);
    case ir::DType::kI8: return load<int8_t>(p);
    case ir::DType::kU8: return load<uint8_t>(p);
    case ir::DType::kI16: return load<int16_t>(p);
    case ir::DType::kI32: return load<int32_t>(p);
    case ir::DType::kI64: return static_cast<double>(load<int64_t>(p));
    case ir::DType::kBool: return load<uint8_t>(p) ? 1.0 : 0.0;
  }
  return 0.0;
}

}  // namespace

ir::DType dtype_from_onnx(int32_t onnx_type, bool* ok) {
  *ok = true;
  switch (onnx_type) {
    case onnx::TensorProto::FLOAT: return ir::DType::kF32;
    case onnx::TensorProto::INT8: return ir::DType::kI8;
    case onnx::TensorProto::UINT8: return ir::DType::kU8;
    case onnx::TensorProto::INT16: return ir::DType::kI16;
    case onnx::TensorProto::INT32: return ir::DType::kI32;
    case onnx::TensorProto::INT64: return ir::DType::kI64;
    case onnx::TensorProto::BOOL: return ir::DType::kBool;
    default: break;
  }
  *ok = false;
  return ir::DType::kF32;
}

Perm identity_perm(size_t rank) {
  Perm p(rank);
  for (size_t i = 0; i < rank; ++i) p[i] = static_cast<int>(i);
  return p;
}
Perm nhwc_perm() { return {0, 2, 3, 1}; }

int64_t ConstValue::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<double> ConstValue::to_doubles() const {
  const int64_t size = ir::dtype_size_bytes(dtype);
  std::vector<double> out(static_cast<size_t>(num_elements()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = element_as_double(dtype, data.data() + i * size);
  return out;
}

std::vector<int64_t> ConstValue::to_ints() const {
  const int64_t size = ir::dtype_size_bytes(dtype);
  std::vector<int64_t> out(static_cast<size_t>(num_elements()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = dtype == ir::DType::kI64 ? load<int64_t>(data.data() + i * size)
                                      : static_cast<int64_t>(element_as_double(dtype, data.data() + i * size));
  }
  return out;
}

Result<ConstValue> read_tensor_proto(const onnx::TensorProto& proto) {
  const std::string name = "tensor '" + proto.name() + "'";
  bool ok = false;
  ConstValue v;
  v.dtype = dtype_from_onnx(proto.data_type(), &ok);
  if (!ok) return fail(name + " has unsupported element type " + std::to_string(proto.data_type()));
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    return fail(name + " keeps its data in an external file, which is not supported");
  }
  if (static_cast<size_t>(proto.dims_size()) > kMaxRank) {
    return fail(name + " has rank " + std::to_string(proto.dims_size()) + ", at most 8 is supported");
  }
  for (int64_t d : proto.dims()) {
    if (d < 0) return fail(name + " has negative dimension " + std::to_string(d));
    v.shape.push_back(d);
  }
  const auto count = checked_product(v.shape);
  const int64_t elem = ir::dtype_size_bytes(v.dtype);
  const auto bytes = count ? checked_mul(*count, elem) : std::nullopt;
  if (!bytes || *bytes > kMaxConstantBytes) return fail(name + " is too large (dimension product overflows or exceeds 1 GiB)");
  const auto n = static_cast<size_t>(*count);
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != static_cast<size_t>(*bytes)) {
      return fail(name + " raw_data holds " + std::to_string(proto.raw_data().size()) + " bytes, shape " +
                  ir::format_shape(v.shape) + " needs " + std::to_string(*bytes));
    }
    v.data.assign(proto.raw_data().begin(), proto.raw_data().end());
    return v;
  }
  auto mismatch = [&](size_t got) {
    return fail(name + " holds " + std::to_string(got) + " values, shape " + ir::format_shape(v.shape) + " needs " +
                std::to_string(n));
  };
  v.data.reserve(static_cast<size_t>(*bytes));
  switch (v.dtype) {
    case ir::DType::kF32:
      if (static_cast<size_t>(proto.float_data_size()) != n) return mismatch(proto.float_data_size());
      for (float f : proto.float_data()) append_le(v.data, f);
      break;
    case ir::DType::kI64:
      if (static_cast<size_t>(proto.int64_data_size()) != n) return mismatch(proto.int64_data_size());
      for (int64_t i : proto.int64_data()) append_le(v.data, i);
      break;
    default:  // int8/uint8/int16/int32/bool all live in int32_data
      if (static_cast<size_t>(proto.int32_data_size()) != n) return mismatch(proto.int32_data_size());
      for (int32_t i : proto.int32_data()) {
        switch (v.dtype) {
          case ir::DType::kI8: append_le(v.data, static_cast<int8_t>(i)); break;
          case ir::DType::kU8:
          case ir::DType::kBool: append_le(v.data, static_cast<uint8_t>(i)); break;
          case ir::DType::kI16: append_le(v.data, static_cast<int16_t>(i)); break;
          default: append_le(v.data, i); break;
        }
      }
      break;
  }
  return v;
}

ConstValue make_i64_const(const std::vector<int64_t>& values, ir::Shape shape) {
  ConstValue v{ir::DType::kI64, std::move(shape), {}};
  for (int64_t x : values) append_le(v.data, x);
  return v;
}

ConstValue make_f32_const(const std::vector<float>& values, ir::Shape shape) {
  ConstValue v{ir::DType::kF32, std::move(shape), {}};
  for (float x : values) append_le(v.data, x);
  return v;
}

ConstValue permute_const(const ConstValue& value, const Perm& perm) {
  const size_t rank = value.shape.size();
  ConstValue out{value.dtype, ir::Shape(rank), std::vector<uint8_t>(value.data.size())};
  for (size_t i = 0; i < rank; ++i) out.shape[i] = value.shape[static_cast<size_t>(perm[i])];
  const ir::Shape in_strides = ir::compute_strides(value.shape);
  const auto elem = static_cast<size_t>(ir::dtype_size_bytes(value.dtype));
  const int64_t n = out.num_elements();
  std::vector<int64_t> index(rank, 0);  // odometer over the output
  for (int64_t o = 0; o < n; ++o) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += index[i] * in_strides[static_cast<size_t>(perm[i])];
    std::memcpy(out.data.data() + static_cast<size_t>(o) * elem, value.data.data() + static_cast<size_t>(src) * elem,
                elem);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < out.shape[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

ConstValue reshape_const(ConstValue value, ir::Shape shape) {
  value.shape = std::move(shape);
  return value;
}

ConstValue dequantize_const(const QuantizedConst& q) {
  const std::vector<double> raw = q.values.to_doubles();
  const ir::Shape strides = ir::compute_strides(q.values.shape);
  std::vector<float> out(raw.size());
  const bool per_axis = q.scale.size() > 1;
  for (size_t i = 0; i < raw.size(); ++i) {
    size_t c = 0;
    if (per_axis) {
      c = static_cast<size_t>((static_cast<int64_t>(i) / strides[static_cast<size_t>(q.axis)]) %
                              q.values.shape[static_cast<size_t>(q.axis)]);
    }
    out[i] = static_cast<float>((raw[i] - q.zero_point[c]) * q.scale[c]);
  }
  return make_f32_const(out, q.values.shape);
}

// --- attributes ---------------------------------------------------------------

const onnx::AttributeProto* find_attr(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t attr_int(const onnx::NodeProto& node, const std::string& name, int64_t fallback) {
  const auto* a = find_attr(node, name);
  return a ? a->i() : fallback;
}

float attr_float(const onnx::NodeProto& node, const std::string& name, float fallback) {
  const auto* a = find_attr(node, name);
  return a ? a->f() : fallback;
}

std::string attr_string(const onnx::NodeProto& node, const std::string& name, const std::string& fallback) {
  const auto* a = find_attr(node, name);
  return a ? a->s() : fallback;
}

std::optional<std::vector<int64_t>> attr_ints(const onnx::NodeProto& node, const std::string& name) {
  const auto* a = find_attr(node, name);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

}  // namespace tinyfit::import::onnx_detail
