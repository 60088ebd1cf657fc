// Conv and QLinearConv -> kConv2D / kDepthwiseConv2D on NHWC activations.
// Weights OIHW become OHWI ([Cout,KH,KW,Cin/g]); depthwise (group == Cin, one
// input channel per group) becomes [1,KH,KW,Cin*mult].
#include <onnx/onnx_pb.h>

#include <cmath>

#include "import/onnx_context.h"

namespace tinyfit::import::onnx_detail {
namespace {

Result<int64_t> output_extent(Context& ctx, int64_t in, int64_t k, int64_t s, int64_t d) {
  if (s < 1 || d < 1 || k < 1) return ctx.error("kernel, strides and dilations must be positive");
  return (in + s - 1) / s;  // SAME_*: ceil(in / stride)
  (void)k;
}

}  // namespace

Result<ir::ConvAttrs> read_window_attrs(Context& ctx, const ir::Shape& x, int64_t kernel_h, int64_t kernel_w) {
  const auto& node = ctx.node();
  ir::ConvAttrs a;
  a.kernel_h = kernel_h;
  a.kernel_w = kernel_w;
  if (auto k = attr_ints(node, "kernel_shape")) {
    if (k->size() != 2) return ctx.error("kernel_shape must have 2 entries (2-D only)");
    a.kernel_h = (*k)[0];
    a.kernel_w = (*k)[1];
  }
  if (auto s = attr_ints(node, "strides")) {
    if (s->size() != 2) return ctx.error("strides must have 2 entries");
    a.stride_h = (*s)[0];
    a.stride_w = (*s)[1];
  }
  if (auto d = attr_ints(node, "dilations")) {
    if (d->size() != 2) return ctx.error("dilations must have 2 entries");
    a.dilation_h = (*d)[0];
    a.dilation_w = (*d)[1];
  }
  if (a.kernel_h < 1 || a.kernel_w < 1 || a.stride_h < 1 || a.stride_w < 1 || a.dilation_h < 1 || a.dilation_w < 1) {
    return ctx.error("kernel, strides and dilations must be positive");
  }
  const std::string auto_pad = attr_string(node, "auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    if (auto p = attr_ints(node, "pads")) {
      if (p->size() != 4) return ctx.error("pads must have 4 entries");
      for (int64_t v : *p) {
        if (v < 0) return ctx.error("negative pads are not supported");
      }
      a.pad = {(*p)[0], (*p)[1], (*p)[2], (*p)[3]};
    }
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    int64_t total[2];
    const int64_t in[2] = {x[2], x[3]}, k[2] = {a.kernel_h, a.kernel_w}, s[2] = {a.stride_h, a.stride_w},
                  d[2] = {a.dilation_h, a.dilation_w};
    for (int i = 0; i < 2; ++i) {
      TINYFIT_ASSIGN_OR_RETURN(int64_t out, output_extent(ctx, in[i], k[i], s[i], d[i]));
      total[i] = std::max<int64_t>(0, (out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - in[i]);
    }
    const bool upper = auto_pad == "SAME_UPPER";
    a.pad.top = upper ? total[0] / 2 : total[0] - total[0] / 2;
    a.pad.bottom = total[0] - a.pad.top;
    a.pad.left = upper ? total[1] / 2 : total[1] - total[1] / 2;
    a.pad.right = total[1] - a.pad.left;
  } else if (auto_pad != "VALID") {
    return ctx.error("unknown auto_pad '" + auto_pad + "'");
  }
  return a;
}

Result<QParams> read_qparams(Context& ctx, int scale_input, int zero_point_input, int axis) {
  QParams q;
  TINYFIT_ASSIGN_OR_RETURN(auto scale, ctx.constant_input(scale_input));
  for (double s : scale->to_doubles()) {
    if (!(s > 0) || !std::isfinite(s)) return ctx.error("quantization scale must be positive and finite");
    q.params.scale.push_back(static_cast<float>(s));
  }
  if (q.params.scale.empty()) return ctx.error("quantization scale is empty");
  if (ctx.has_input(zero_point_input)) {
    TINYFIT_ASSIGN_OR_RETURN(auto zp, ctx.constant_input(zero_point_input));
    q.dtype = zp->dtype;
    if (q.dtype != ir::DType::kI8 && q.dtype != ir::DType::kU8 && q.dtype != ir::DType::kI32) {
      return ctx.error("zero point must be int8, uint8 or int32");
    }
    for (int64_t z : zp->to_ints()) q.params.zero_point.push_back(static_cast<int32_t>(z));
    if (q.params.zero_point.size() != q.params.scale.size()) {
      return ctx.error("scale has " + std::to_string(q.params.scale.size()) + " entries, zero point " +
                       std::to_string(q.params.zero_point.size()));
    }
  } else {
    q.params.zero_point.assign(q.params.scale.size(), 0);
  }
  q.params.axis = axis;
  return q;
}

namespace {

// Weights as the IR wants them: permuted, with quantization kept when the model
// gives it (DequantizeLinear of int8 weights, or QLinearConv's scales).
Result<ir::TensorId> convert_weights(Context& ctx, const Value& w, const Perm& perm, bool raw_quantized,
                                     const QParams* qlinear) {
  const ConstValue& data = w.quantized ? w.quantized->values : *w.constant;
  const ir::Shape shape = apply_perm(data.shape, perm);
  if (!raw_quantized) return materialize_constant(ctx, w, perm, shape, "weights");
  if (!qlinear) return ctx.error("internal: quantized weights without parameters");
  ir::QuantParams params = qlinear->params;
  params.axis = invert_perm(perm)[static_cast<size_t>(params.axis)];
  return ctx.add_constant(ctx.node_name() + "/weights", permute_const(data, perm), params);
}

}  // namespace

Status convert_conv_like(Context& ctx, const std::string& op) {
  const bool qlinear = op == "QLinearConv";
  const int w_index = qlinear ? 3 : 1, b_index = qlinear ? 8 : 2;
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.activation_input(0));
  TINYFIT_ASSIGN_OR_RETURN(const Value* w, ctx.input(w_index));
  if (!w->is_constant) return ctx.error("weights must be constant");
  const ir::Shape& ws = w->quantized ? w->quantized->values.shape : w->constant->shape;
  if (x->logical_shape.size() != 4 || ws.size() != 4) {
    return ctx.error("only 2-D convolution (rank-4 input and weights) is supported");
  }
  const int64_t group = attr_int(ctx.node(), "group", 1);
  const int64_t cin = x->logical_shape[1], cout = ws[0];
  if (group < 1 || cin % group != 0 || ws[1] * group != cin || cout % group != 0) {
    return ctx.error("group " + std::to_string(group) + " does not fit input channels " + std::to_string(cin) +
                     " and weights " + ir::format_shape(ws));
  }
  TINYFIT_ASSIGN_OR_RETURN(ir::ConvAttrs attrs, read_window_attrs(ctx, x->logical_shape, ws[2], ws[3]));
  if (attrs.kernel_h != ws[2] || attrs.kernel_w != ws[3]) {
    return ctx.error("kernel_shape differs from the weights " + ir::format_shape(ws));
  }
  const bool depthwise = group > 1 && group == cin && ws[1] == 1;
  attrs.groups = depthwise ? 1 : group;

  std::optional<QParams> in_q, w_q, out_q;
  if (qlinear) {
    TINYFIT_ASSIGN_OR_RETURN(in_q, read_qparams(ctx, 1, 2, 0));
    TINYFIT_ASSIGN_OR_RETURN(w_q, read_qparams(ctx, 4, 5, 0));
    TINYFIT_ASSIGN_OR_RETURN(out_q, read_qparams(ctx, 6, 7, 0));
    if (w->quantized) return ctx.error("QLinearConv weights must be an integer initializer");
  }
  TINYFIT_ASSIGN_OR_RETURN(ir::TensorId xid, ensure_perm(ctx, *x, nhwc_perm()));
  if (qlinear) {
    ir::Tensor& xt = ctx.graph.tensor(xid);
    if (!ir::is_quantized_dtype(xt.dtype)) return ctx.error("QLinearConv input must be int8 or uint8");
    if (!xt.quant) xt.quant = in_q->params;
  }
  const Perm wperm = depthwise ? Perm{1, 2, 3, 0} : Perm{0, 2, 3, 1};
  TINYFIT_ASSIGN_OR_RETURN(ir::TensorId wid, convert_weights(ctx, *w, wperm, qlinear, w_q ? &*w_q : nullptr));
  std::vector<ir::TensorId> inputs{xid, wid};
  if (ctx.has_input(b_index)) {
    TINYFIT_ASSIGN_OR_RETURN(const Value* b, ctx.input(b_index));
    if (!b->is_constant) return ctx.error("bias must be constant");
    const ir::Shape& bs = b->quantized ? b->quantized->values.shape : b->constant->shape;
    if (bs != ir::Shape{cout}) return ctx.error("bias shape " + ir::format_shape(bs) + " must be [" + std::to_string(cout) + "]");
    if (qlinear) {
      // int32 bias with scale in_scale * w_scale (ONNX QLinearConv definition).
      ir::QuantParams bq;
      for (float ws_c : w_q->params.scale) bq.scale.push_back(in_q->params.scale[0] * ws_c);
      bq.zero_point.assign(bq.scale.size(), 0);
      if (b->constant->dtype != ir::DType::kI32) return ctx.error("QLinearConv bias must be int32");
      inputs.push_back(ctx.add_constant(ctx.node_name() + "/bias", *b->constant, bq));
    } else {
      TINYFIT_ASSIGN_OR_RETURN(ir::TensorId bid, materialize_constant(ctx, *b, {0}, {cout}, "bias"));
      inputs.push_back(bid);
    }
  }
  const ir::DType out_dtype = qlinear ? out_q->dtype : ir::DType::kF32;
  std::optional<ir::QuantParams> out_params;
  if (qlinear) out_params = out_q->params;
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), out_dtype, out_params);
  TINYFIT_RETURN_IF_ERROR(
      ctx.emit(depthwise ? ir::OpType::kDepthwiseConv2D : ir::OpType::kConv2D, inputs, {out}, attrs));
  return bind_output(ctx, 0, out, nhwc_perm());
}

}  // namespace tinyfit::import::onnx_detail
