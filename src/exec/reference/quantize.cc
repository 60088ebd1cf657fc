// Quantize (f32 -> i8/u8: round half away from zero of x/scale, plus zero point,
// saturate; or requantize between integer parameters with a multiplier, as
// TFLite Micro's Requantize) and Dequantize (scale * (q - zp), in double as
// TFLite's DequantizationParams).
#include <algorithm>

#include "exec/reference/kernel.h"

namespace tinyfit::exec::reference {

Status run_quantize(const KernelArgs& args) {
  const ir::DType in_dtype = args.input_tensor(0).dtype;
  const ir::DType out_dtype = args.output_tensor(0).dtype;
  if (!ir::is_quantized_dtype(out_dtype)) {
    return fail_kernel(args, "output dtype " + std::string(ir::dtype_name(out_dtype)) + " is not quantized");
  }
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qy, get_tensor_quant(args, args.output_tensor(0)));
  const int32_t lo = ir::dtype_min(out_dtype);
  const int32_t hi = ir::dtype_max(out_dtype);
  std::vector<int32_t> y(static_cast<size_t>(args.outputs[0]->num_elements()));
  if (in_dtype == ir::DType::kF32) {
    const auto x = args.inputs[0]->values<float>();
    for (size_t i = 0; i < y.size(); ++i) {
      // TFLite AffineQuantize: float division, TfLiteRound, then the zero point.
      const int64_t q = static_cast<int64_t>(round_to_int32(x[i] / qy.scale)) + qy.zero_point;
      y[i] = static_cast<int32_t>(std::clamp<int64_t>(q, lo, hi));
    }
  } else if (ir::is_quantized_dtype(in_dtype)) {
    TINYFIT_ASSIGN_OR_RETURN(TensorQuant qx, get_tensor_quant(args, args.input_tensor(0)));
    const QuantizedMultiplier m =
        quantize_multiplier(static_cast<double>(qx.scale) / static_cast<double>(qy.scale));
    const std::vector<int32_t> x = load_integers(*args.inputs[0]);
    for (size_t i = 0; i < y.size(); ++i) {
      y[i] = std::clamp(multiply_by_quantized_multiplier(x[i] - qx.zero_point, m) + qy.zero_point, lo, hi);
    }
  } else {
    return fail_kernel(args, "input '" + args.input_tensor(0).name + "' has dtype " +
                                 std::string(ir::dtype_name(in_dtype)) + ", expected f32 or quantized");
  }
  store_integers(*args.outputs[0], y);
  return {};
}

Status run_dequantize(const KernelArgs& args) {
  const ir::DType in_dtype = args.input_tensor(0).dtype;
  if (!ir::is_quantized_dtype(in_dtype) || args.output_tensor(0).dtype != ir::DType::kF32) {
    return fail_kernel(args, "expected a quantized input and an f32 output, got " +
                                 std::string(ir::dtype_name(in_dtype)) + " -> " +
                                 std::string(ir::dtype_name(args.output_tensor(0).dtype)));
  }
  TINYFIT_ASSIGN_OR_RETURN(TensorQuant qx, get_tensor_quant(args, args.input_tensor(0)));
  const std::vector<int32_t> x = load_integers(*args.inputs[0]);
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    y[i] = static_cast<float>(static_cast<double>(qx.scale) * (x[i] - qx.zero_point));
  }
  store_floats(*args.outputs[0], y);
  return {};
}

}  // namespace tinyfit::exec::reference
