// Softmax, LRN and BatchNormalization. BatchNormalization becomes Mul + Add
// with per-channel constants; fold_batch_norm later folds them into the
// convolution before them.
#include <onnx/onnx_pb.h>

#include <cmath>

#include "import/onnx_context.h"

namespace tinyfit::import::onnx_detail {
namespace {

// Before opset 13 Softmax works on the input coerced to 2-D at `axis`: a
// softmax over all trailing axes together. That equals a softmax over one
// stored axis when at most one trailing axis has extent > 1.
Status convert_softmax(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.activation_input(0));
  const auto rank = static_cast<int64_t>(x->logical_shape.size());
  int64_t axis = attr_int(ctx.node(), "axis", ctx.opset() < 13 ? 1 : -1);
  if (axis < -rank || axis >= rank) return ctx.error("axis " + std::to_string(axis) + " out of range");
  if (axis < 0) axis += rank;
  int64_t chosen = rank - 1;
  if (ctx.opset() < 13) {
    int wide = 0;
    for (int64_t a = axis; a < rank; ++a) {
      if (x->logical_shape[static_cast<size_t>(a)] > 1) {
        chosen = a;
        ++wide;
      }
    }
    if (wide > 1) return ctx.error("softmax over several axes of extent > 1 (opset < 13 coercion) is not supported");
    if (wide == 0) chosen = axis;
  } else {
    chosen = axis;
  }
  TINYFIT_ASSIGN_OR_RETURN(int stored, stored_axis(ctx, *x, chosen));
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), ir::DType::kF32);
  const Perm perm = x->perm;
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kSoftmax, {x->id}, {out}, ir::SoftmaxAttrs{stored, 1.0f}));
  return bind_output(ctx, 0, out, perm);
}

Status convert_lrn(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.activation_input(0));
  if (x->logical_shape.size() != 4) return ctx.error("LRN needs a rank-4 input");
  ir::LrnAttrs a;
  a.size = attr_int(ctx.node(), "size", 0);
  a.alpha = attr_float(ctx.node(), "alpha", 1e-4f);
  a.beta = attr_float(ctx.node(), "beta", 0.75f);
  a.bias = attr_float(ctx.node(), "bias", 1.0f);
  TINYFIT_ASSIGN_OR_RETURN(ir::TensorId xid, ensure_perm(ctx, *x, nhwc_perm()));
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), ir::DType::kF32);
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kLrn, {xid}, {out}, a));
  return bind_output(ctx, 0, out, nhwc_perm());
}

// y = (x - mean) / sqrt(var + eps) * scale + b  =  x * s + t per channel.
Status convert_batch_norm(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.activation_input(0));
  if (x->logical_shape.size() < 2) return ctx.error("BatchNormalization needs a channel axis");
  for (int i = 1; i < ctx.node().output_size(); ++i) {
    if (!ctx.node().output(i).empty()) return ctx.error("training-mode outputs are not supported");
  }
  const int64_t c = x->logical_shape[1];
  std::vector<double> p[4];
  for (int i = 0; i < 4; ++i) {
    TINYFIT_ASSIGN_OR_RETURN(auto v, ctx.constant_input(i + 1));
    p[i] = v->to_doubles();
    if (static_cast<int64_t>(p[i].size()) != c) {
      return ctx.error("parameter " + std::to_string(i + 1) + " has " + std::to_string(p[i].size()) +
                       " values, expected " + std::to_string(c));
    }
  }
  const double eps = attr_float(ctx.node(), "epsilon", 1e-5f);
  std::vector<float> scale(static_cast<size_t>(c)), shift(static_cast<size_t>(c));
  for (size_t k = 0; k < scale.size(); ++k) {
    const double var = p[3][k] + eps;
    if (!(var > 0)) return ctx.error("variance + epsilon must be positive");
    const double s = p[0][k] / std::sqrt(var);
    scale[k] = static_cast<float>(s);
    shift[k] = static_cast<float>(p[1][k] - p[2][k] * s);
  }
  // Per-channel constants shaped [C,1,...] in ONNX order, then broadcast to
  // the activation's stored order.
  ir::Shape cshape(x->logical_shape.size() - 1, 1);
  cshape[0] = c;
  Value sv, tv;
  sv.is_constant = tv.is_constant = true;
  sv.constant = std::make_shared<const ConstValue>(make_f32_const(scale, cshape));
  tv.constant = std::make_shared<const ConstValue>(make_f32_const(shift, cshape));
  const size_t rank = x->logical_shape.size();
  TINYFIT_ASSIGN_OR_RETURN(ir::TensorId sid, materialize_broadcast_constant(ctx, sv, rank, x->perm, "scale"));
  TINYFIT_ASSIGN_OR_RETURN(ir::TensorId tid, materialize_broadcast_constant(ctx, tv, rank, x->perm, "shift"));
  const Perm perm = x->perm;
  const ir::TensorId xid = x->id;
  const ir::TensorId scaled = ctx.add_activation(ctx.node().output(0) + "/scaled", ir::DType::kF32);
  // The Mul carries the model node's name; the Add is a synthesized helper.
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kMul, {xid, sid}, {scaled}));
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), ir::DType::kF32);
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kAdd, {scaled, tid}, {out}, {}, "shift"));
  return bind_output(ctx, 0, out, perm);
}

}  // namespace

Status convert_normalization(Context& ctx, const std::string& op) {
  if (op == "Softmax") return convert_softmax(ctx);
  if (op == "LRN") return convert_lrn(ctx);
  return convert_batch_norm(ctx);
}

}  // namespace tinyfit::import::onnx_detail
