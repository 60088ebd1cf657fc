// QuantizeLinear / DequantizeLinear. On activations they become kQuantize /
// kDequantize (fold_qdq turns DQ -> op -> Q into the quantized op). On
// constants a DequantizeLinear keeps the integer payload and its scales, so
// QDQ weights reach the IR as int8 with per-channel scales.
#include <onnx/onnx_pb.h>

#include <cmath>

#include "import/onnx_context.h"
#include "ir/dtype.h"

namespace tinyfit::import::onnx_detail {
namespace {

Result<int> quant_axis(Context& ctx, const ir::Shape& shape, size_t scale_count) {
  if (scale_count == 1) return 0;
  const auto rank = static_cast<int64_t>(shape.size());
  int64_t axis = attr_int(ctx.node(), "axis", 1);
  if (axis < -rank || axis >= rank) return ctx.error("axis " + std::to_string(axis) + " out of range");
  if (axis < 0) axis += rank;
  if (shape[static_cast<size_t>(axis)] != static_cast<int64_t>(scale_count)) {
    return ctx.error(std::to_string(scale_count) + " scales for axis " + std::to_string(axis) + " of extent " +
                     std::to_string(shape[static_cast<size_t>(axis)]));
  }
  return static_cast<int>(axis);
}

Status convert_dequantize(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.input(0));
  const ir::DType xdtype = x->is_constant ? x->constant->dtype : ctx.graph.tensor(x->id).dtype;
  if (xdtype != ir::DType::kI8 && xdtype != ir::DType::kU8 && xdtype != ir::DType::kI32) {
    return ctx.error("DequantizeLinear input must be int8, uint8 or int32, got " + std::string(ir::dtype_name(xdtype)));
  }
  TINYFIT_ASSIGN_OR_RETURN(QParams q, read_qparams(ctx, 1, 2, 0));
  if (x->is_constant) {
    TINYFIT_ASSIGN_OR_RETURN(int axis, quant_axis(ctx, x->constant->shape, q.params.scale.size()));
    auto qc = std::make_shared<QuantizedConst>();
    qc->values = *x->constant;
    qc->scale = q.params.scale;
    qc->zero_point = q.params.zero_point;
    qc->axis = axis;
    qc->dq_node = ctx.node_name();
    Value v;
    v.is_constant = true;
    v.quantized = qc;
    v.constant = std::make_shared<const ConstValue>(dequantize_const(*qc));
    // Listed by the IR Dequantize made where the weights are used, or by the
    // first node reading them when they are used as float constants.
    v.pending_names = x->pending_names;
    v.pending_names.push_back(ctx.node_name());
    return ctx.set_output(0, std::move(v));
  }
  if (q.params.scale.size() != 1) return ctx.error("per-axis dequantization of activations is not supported");
  ir::Tensor& xt = ctx.graph.tensor(x->id);
  if (!xt.quant) {
    xt.quant = q.params;
  } else if (xt.quant->scale != q.params.scale || xt.quant->zero_point != q.params.zero_point) {
    // Different parameters than the producer's: the DQ defines the meaning of
    // these integers; requantizing would be needed and is not supported.
    return ctx.error("dequantization parameters differ from those of the tensor's producer");
  }
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), ir::DType::kF32);
  const Perm perm = x->perm;
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kDequantize, {x->id}, {out}));
  return bind_output(ctx, 0, out, perm);
}

Status convert_quantize(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.input(0));
  TINYFIT_ASSIGN_OR_RETURN(QParams q, read_qparams(ctx, 1, 2, 0));
  if (q.dtype == ir::DType::kI32) return ctx.error("QuantizeLinear to int32 is not supported");
  if (x->is_constant) {
    // Float weights quantized in the graph: fold to the integer payload.
    TINYFIT_ASSIGN_OR_RETURN(int axis, quant_axis(ctx, x->constant->shape, q.params.scale.size()));
    const auto values = x->constant->to_doubles();
    const ir::Shape strides = ir::compute_strides(x->constant->shape);
    ConstValue out{q.dtype, x->constant->shape, {}};
    for (size_t i = 0; i < values.size(); ++i) {
      size_t c = 0;
      if (q.params.scale.size() > 1) {
        c = static_cast<size_t>((static_cast<int64_t>(i) / strides[static_cast<size_t>(axis)]) %
                                x->constant->shape[static_cast<size_t>(axis)]);
      }
      const double v = std::nearbyint(values[i] / q.params.scale[c]) + q.params.zero_point[c];
      const double clamped = std::clamp<double>(v, ir::dtype_min(q.dtype), ir::dtype_max(q.dtype));
      out.data.push_back(static_cast<uint8_t>(static_cast<int32_t>(clamped) & 0xFF));
    }
    return ctx.set_constant_output(0, std::move(out));
  }
  if (q.params.scale.size() != 1) return ctx.error("per-axis quantization of activations is not supported");
  const ir::Tensor& xt = ctx.graph.tensor(x->id);
  if (xt.dtype != ir::DType::kF32) return ctx.error("QuantizeLinear input must be float32");
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), q.dtype, q.params);
  const Perm perm = x->perm;
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kQuantize, {x->id}, {out}));
  return bind_output(ctx, 0, out, perm);
}

}  // namespace

Status convert_quantization(Context& ctx, const std::string& op) {
  return op == "QuantizeLinear" ? convert_quantize(ctx) : convert_dequantize(ctx);
}

}  // namespace tinyfit::import::onnx_detail
