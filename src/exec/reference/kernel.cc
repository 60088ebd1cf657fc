#include "exec/reference/kernel.h"

#include <algorithm>
#include <cstring>

namespace tinyfit::exec::reference {

tl::unexpected<Diag> fail_kernel(const KernelArgs& args, std::string message) {
  return tl::unexpected<Diag>(Diag{ExitCode::kBadInput, args.graph.source_path, args.node.name,
                                   std::string(ir::op_type_name(args.node.op)), std::move(message)});
}

Result<TensorQuant> get_tensor_quant(const KernelArgs& args, const ir::Tensor& tensor) {
  if (!tensor.quant || tensor.quant->scale.empty() || tensor.quant->zero_point.empty()) {
    return fail_kernel(args, "tensor '" + tensor.name + "' (" + std::string(ir::dtype_name(tensor.dtype)) +
                                 ") has no quantization parameters");
  }
  if (tensor.quant->scale.size() != 1) {
    return fail_kernel(args, "tensor '" + tensor.name + "' must be quantized per tensor, has " +
                                 std::to_string(tensor.quant->scale.size()) + " scales");
  }
  return TensorQuant{tensor.quant->scale[0], tensor.quant->zero_point[0]};
}

Result<ChannelQuant> get_channel_quant(const KernelArgs& args, const ir::Tensor& weights,
                                       int64_t channels) {
  if (!weights.quant || weights.quant->scale.empty() || weights.quant->zero_point.empty()) {
    return fail_kernel(args, "weights '" + weights.name + "' have no quantization parameters");
  }
  const auto& q = *weights.quant;
  const auto n = static_cast<int64_t>(q.scale.size());
  if (n != 1 && n != channels) {
    return fail_kernel(args, "weights '" + weights.name + "' have " + std::to_string(n) +
                                 " scales, expected 1 or " + std::to_string(channels));
  }
  ChannelQuant out;
  for (int64_t c = 0; c < channels; ++c) {
    const auto i = static_cast<size_t>(n == 1 ? 0 : c);
    out.scale.push_back(q.scale[i]);
    out.zero_point.push_back(q.zero_point.size() == 1 ? q.zero_point[0]
                                                      : q.zero_point[std::min(i, q.zero_point.size() - 1)]);
  }
  return out;
}

bool is_int8_like(ir::DType dtype) { return dtype == ir::DType::kI8 || dtype == ir::DType::kU8; }

std::vector<int32_t> load_integers(const TensorData& data) {
  const auto n = static_cast<size_t>(data.num_elements());
  std::vector<int32_t> out(n);
  switch (data.dtype) {
    case ir::DType::kI8: {
      auto v = data.values<int8_t>();
      for (size_t i = 0; i < n; ++i) out[i] = v[i];
      break;
    }
    case ir::DType::kU8: {
      auto v = data.values<uint8_t>();
      for (size_t i = 0; i < n; ++i) out[i] = v[i];
      break;
    }
    case ir::DType::kI16: {
      auto v = data.values<int16_t>();
      for (size_t i = 0; i < n; ++i) out[i] = v[i];
      break;
    }
    case ir::DType::kI32: {
      auto v = data.values<int32_t>();
      for (size_t i = 0; i < n; ++i) out[i] = v[i];
      break;
    }
    default:
      TINYFIT_CHECK(false) << "load_integers of " << ir::dtype_name(data.dtype);
  }
  return out;
}

void store_integers(TensorData& data, const std::vector<int32_t>& values) {
  TINYFIT_CHECK(static_cast<int64_t>(values.size()) == data.num_elements())
      << values.size() << " values for " << data.num_elements() << " elements";
  const int32_t lo = ir::dtype_min(data.dtype);
  const int32_t hi = ir::dtype_max(data.dtype);
  for (size_t i = 0; i < values.size(); ++i) {
    TINYFIT_CHECK(values[i] >= lo && values[i] <= hi) << "value " << values[i] << " out of range";
    switch (data.dtype) {
      case ir::DType::kI8: data.mutable_values<int8_t>()[i] = static_cast<int8_t>(values[i]); break;
      case ir::DType::kU8: data.mutable_values<uint8_t>()[i] = static_cast<uint8_t>(values[i]); break;
      case ir::DType::kI16: data.mutable_values<int16_t>()[i] = static_cast<int16_t>(values[i]); break;
      case ir::DType::kI32: data.mutable_values<int32_t>()[i] = values[i]; break;
      default: TINYFIT_CHECK(false) << "store_integers of " << ir::dtype_name(data.dtype);
    }
  }
}

Result<std::vector<float>> load_reals(const KernelArgs& args, const TensorData& data,
                                      const ir::Tensor& tensor) {
  const auto n = static_cast<size_t>(data.num_elements());
  if (data.dtype == ir::DType::kF32) {
    auto v = data.values<float>();
    return std::vector<float>(v.begin(), v.end());
  }
  if (!ir::is_quantized_dtype(data.dtype) || !tensor.quant || tensor.quant->scale.empty()) {
    return fail_kernel(args, "tensor '" + tensor.name + "' has dtype " +
                                 std::string(ir::dtype_name(data.dtype)) + ", expected f32");
  }
  // Per-channel dequantization along the quantized axis.
  const auto& q = *tensor.quant;
  const std::vector<int32_t> ints = load_integers(data);
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(q.axis) + 1; d < data.shape.size(); ++d) inner *= data.shape[d];
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) {
    size_t c = 0;
    if (q.scale.size() > 1) c = static_cast<size_t>(static_cast<int64_t>(i) / inner) % q.scale.size();
    const int32_t zp = q.zero_point.empty() ? 0 : q.zero_point[std::min(c, q.zero_point.size() - 1)];
    out[i] = static_cast<float>(static_cast<double>(q.scale[c]) * (ints[i] - zp));
  }
  return out;
}

void store_floats(TensorData& data, const std::vector<float>& values) {
  TINYFIT_CHECK(data.dtype == ir::DType::kF32 && static_cast<int64_t>(values.size()) == data.num_elements())
      << "store_floats into " << ir::dtype_name(data.dtype);
  std::memcpy(data.bytes.data(), values.data(), values.size() * sizeof(float));
}

float apply_activation(const ir::FusedActivation& activation, float x) {
  return std::min(std::max(x, activation.min), activation.max);
}

std::vector<int64_t> compute_broadcast_offsets(const ir::Shape& out_shape, const ir::Shape& in_shape) {
  const size_t rank = out_shape.size();
  TINYFIT_CHECK(in_shape.size() <= rank) << "broadcast of higher rank";
  // Input strides aligned to the output's axes; 0 where the input broadcasts.
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in_shape.size(); ++k) {
    const size_t in_axis = in_shape.size() - 1 - k;
    const size_t out_axis = rank - 1 - k;
    strides[out_axis] = in_shape[in_axis] == 1 ? 0 : stride;
    stride *= in_shape[in_axis];
  }
  int64_t total = 1;
  for (int64_t d : out_shape) total *= d;
  std::vector<int64_t> offsets(static_cast<size_t>(total));
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < total; ++i) {
    offsets[static_cast<size_t>(i)] = offset;
    for (size_t a = rank; a-- > 0;) {
      ++index[a];
      offset += strides[a];
      if (index[a] < out_shape[a]) break;
      offset -= strides[a] * index[a];
      index[a] = 0;
    }
  }
  return offsets;
}

}  // namespace tinyfit::exec::reference

namespace tinyfit::exec::reference {

QuantizedMultiplier compute_conv_multiplier(float input_scale, float weight_scale, float output_scale,
                                            bool float_product) {
  const double product = float_product ? static_cast<double>(input_scale * weight_scale)
                                       : static_cast<double>(input_scale) * static_cast<double>(weight_scale);
  return quantize_multiplier(product / static_cast<double>(output_scale));
}

Result<ConvQuant> prepare_conv_quant(const KernelArgs& args, int64_t out_channels, bool float_product) {
  ConvQuant q;
  const ir::Tensor& x = args.input_tensor(0);
  const ir::Tensor& w = args.input_tensor(1);
  const ir::Tensor& y = args.output_tensor(0);
  if (!is_int8_like(x.dtype) || !is_int8_like(w.dtype) || !is_int8_like(y.dtype)) {
    return fail_kernel(args, "quantized kernel needs i8/u8 input, weights and output, got " +
                                 std::string(ir::dtype_name(x.dtype)) + ", " +
                                 std::string(ir::dtype_name(w.dtype)) + ", " +
                                 std::string(ir::dtype_name(y.dtype)));
  }
  TINYFIT_ASSIGN_OR_RETURN(q.input, get_tensor_quant(args, x));
  TINYFIT_ASSIGN_OR_RETURN(q.output, get_tensor_quant(args, y));
  TINYFIT_ASSIGN_OR_RETURN(q.weights, get_channel_quant(args, w, out_channels));
  for (int64_t c = 0; c < out_channels; ++c) {
    q.multipliers.push_back(compute_conv_multiplier(q.input.scale, q.weights.scale[static_cast<size_t>(c)],
                                                    q.output.scale, float_product));
  }
  q.bias.assign(static_cast<size_t>(out_channels), 0);
  if (args.has_input(2)) {
    const TensorData& b = *args.inputs[2];
    if (b.dtype != ir::DType::kI32 || b.num_elements() != out_channels) {
      return fail_kernel(args, "bias '" + args.input_tensor(2).name + "' must be i32[" +
                                   std::to_string(out_channels) + "], is " +
                                   std::string(ir::dtype_name(b.dtype)) + "[" +
                                   std::to_string(b.num_elements()) + "]");
    }
    q.bias = load_integers(b);
  }
  q.range = compute_activation_range_quantized(args.node.activation, y.dtype, q.output.scale,
                                               q.output.zero_point);
  return q;
}

Result<std::vector<float>> load_bias_reals(const KernelArgs& args, int64_t out_channels) {
  if (!args.has_input(2)) return std::vector<float>(static_cast<size_t>(out_channels), 0.0f);
  TINYFIT_ASSIGN_OR_RETURN(std::vector<float> bias, load_reals(args, *args.inputs[2], args.input_tensor(2)));
  if (static_cast<int64_t>(bias.size()) != out_channels) {
    return fail_kernel(args, "bias has " + std::to_string(bias.size()) + " elements, expected " +
                                 std::to_string(out_channels));
  }
  return bias;
}

}  // namespace tinyfit::exec::reference
