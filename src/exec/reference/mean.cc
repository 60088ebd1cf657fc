// Mean over a set of axes. Quantized: TFLite reference_ops::QuantizedMeanOrSum
// as TFLite Micro runs it for int8 (reduce.h): sum of (q - in_zp), multiplier
// in_scale/out_scale with 1/N folded in by a truncating integer division of
// the Q31 multiplier, then MultiplyByQuantizedMultiplier. With equal in/out
// parameters this is a rounded average.
#include <algorithm>
#include <bit>

#include "exec/reference/kernel.h"

namespace tinyfit::exec::reference {
namespace {

// For each input element, the flat index of the output element it reduces
// into; also returns the number of elements reduced per output.
std::vector<int64_t> map_to_outputs(const ir::Shape& in_shape, const std::vector<int>& axes,
                                    int64_t* reduced_count) {
  const size_t rank = in_shape.size();
  std::vector<bool> reduced(rank, false);
  for (int axis : axes) reduced[static_cast<size_t>(axis)] = true;
  // Output strides over the kept axes only.
  std::vector<int64_t> out_strides(rank, 0);
  int64_t stride = 1;
  *reduced_count = 1;
  for (size_t d = rank; d-- > 0;) {
    if (reduced[d]) {
      *reduced_count *= in_shape[d];
    } else {
      out_strides[d] = stride;
      stride *= in_shape[d];
    }
  }
  int64_t total = 1;
  for (int64_t d : in_shape) total *= d;
  std::vector<int64_t> map(static_cast<size_t>(total));
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < total; ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < rank; ++d) o += index[d] * out_strides[d];
    map[static_cast<size_t>(i)] = o;
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < in_shape[d]) break;
      index[d] = 0;
    }
  }
  return map;
}

}  // namespace

Status run_mean(const KernelArgs& args) {
  const auto& a = args.node.attr<ir::ReduceAttrs>();
  const ir::Shape& in_shape = args.input_tensor(0).shape;
  int64_t count = 0;
  const std::vector<int64_t> to_output = map_to_outputs(in_shape, a.axes, &count);
  const auto outputs = static_cast<size_t>(args.outputs[0]->num_elements());
  const ir::DType dtype = args.output_tensor(0).dtype;

  if (dtype == ir::DType::kF32) {
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> x, load_reals(args, *args.inputs[0], args.input_tensor(0)));
    std::vector<double> sums(outputs, 0.0);
    for (size_t i = 0; i < x.size(); ++i) sums[static_cast<size_t>(to_output[i])] += x[i];
    std::vector<float> y(outputs);
    for (size_t o = 0; o < outputs; ++o) {
      y[o] = apply_activation(args.node.activation,
                              count == 0 ? 0.0f : static_cast<float>(sums[o] / static_cast<double>(count)));
    }
    store_floats(*args.outputs[0], y);
    return {};
  }
  if (!is_int8_like(dtype) || args.input_tensor(0).dtype != dtype) {
    return fail_kernel(args, "unsupported dtype " + std::string(ir::dtype_name(dtype)));
  }
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qx, get_tensor_quant(args, args.input_tensor(0)));
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qy, get_tensor_quant(args, args.output_tensor(0)));
  const std::vector<int32_t> x = load_integers(*args.inputs[0]);
  std::vector<int32_t> sums(outputs, 0);
  for (size_t i = 0; i < x.size(); ++i) sums[static_cast<size_t>(to_output[i])] += x[i];
  QuantizedMultiplier m = quantize_multiplier(static_cast<double>(qx.scale) / static_cast<double>(qy.scale));
  if (count > 0) {
    // Fold 1/count into the multiplier (TFLite: "Readapt output rescaling").
    int shift = 63 - std::countl_zero(static_cast<uint64_t>(count));
    shift = std::min(shift, 32);
    shift = std::min(shift, 31 + m.shift);
    m.multiplier = static_cast<int32_t>((static_cast<int64_t>(m.multiplier) << shift) / count);
    m.shift -= shift;
  }
  const ActivationRange range =
      compute_activation_range_quantized(args.node.activation, dtype, qy.scale, qy.zero_point);
  std::vector<int32_t> y(outputs, qy.zero_point);
  if (count > 0) {
    for (size_t o = 0; o < outputs; ++o) {
      const auto shifted_sum = static_cast<int32_t>(sums[o] - qx.zero_point * count);
      y[o] = std::clamp(multiply_by_quantized_multiplier(shifted_sum, m) + qy.zero_point, range.min, range.max);
    }
  }
  store_integers(*args.outputs[0], y);
  return {};
}

}  // namespace tinyfit::exec::reference
