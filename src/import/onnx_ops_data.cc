// Concat, Split, Slice, Pad and Transpose. Axis attributes are remapped to the
// stored order; a Transpose only changes the tracked order (no node).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <limits>

#include "import/onnx_context.h"

namespace tinyfit::import::onnx_detail {
namespace {

Status convert_concat(Context& ctx) {
  const Value* first_act = nullptr;
  for (int i = 0; i < ctx.node().input_size(); ++i) {
    TINYFIT_ASSIGN_OR_RETURN(const Value* v, ctx.input(i));
    if (!v->is_constant) {
      first_act = v;
      break;
    }
  }
  if (!first_act) return ctx.error("internal: constant Concat should have been folded");
  const Perm perm = first_act->perm;
  const size_t rank = perm.size();
  std::vector<ir::TensorId> inputs;
  std::optional<ir::QuantParams> quant = ctx.graph.tensor(first_act->id).quant;
  ir::DType dtype = ctx.graph.tensor(first_act->id).dtype;
  for (int i = 0; i < ctx.node().input_size(); ++i) {
    TINYFIT_ASSIGN_OR_RETURN(const Value* v, ctx.input(i));
    if (v->is_constant) {
      const ir::Shape& s = v->quantized ? v->quantized->values.shape : v->constant->shape;
      if (s.size() != rank) return ctx.error("concat inputs differ in rank");
      TINYFIT_ASSIGN_OR_RETURN(ir::TensorId id, materialize_constant(ctx, *v, perm, apply_perm(s, perm),
                                                                          "input" + std::to_string(i)));
      inputs.push_back(id);
    } else {
      if (v->logical_shape.size() != rank) return ctx.error("concat inputs differ in rank");
      TINYFIT_ASSIGN_OR_RETURN(ir::TensorId id, ensure_perm(ctx, *v, perm));
      inputs.push_back(id);
    }
  }
  TINYFIT_ASSIGN_OR_RETURN(int axis, stored_axis(ctx, *first_act, attr_int(ctx.node(), "axis", 0)));
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), dtype, quant);
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kConcat, inputs, {out}, ir::ConcatAttrs{axis}));
  return bind_output(ctx, 0, out, perm);
}

Status convert_split(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.activation_input(0));
  const int64_t logical_axis = attr_int(ctx.node(), "axis", 0);
  TINYFIT_ASSIGN_OR_RETURN(int axis, stored_axis(ctx, *x, logical_axis));
  const int64_t extent = ctx.graph.tensor(x->id).shape[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes;
  if (ctx.opset() >= 13 && ctx.has_input(1)) {
    TINYFIT_ASSIGN_OR_RETURN(auto c, ctx.constant_input(1));
    sizes = c->to_ints();
  } else if (auto s = attr_ints(ctx.node(), "split")) {
    sizes = *s;
  } else {
    const int64_t n = ctx.node().output_size();
    if (n == 0 || extent % n != 0) return ctx.error("axis extent " + std::to_string(extent) + " does not split evenly");
    sizes.assign(static_cast<size_t>(n), extent / n);
  }
  std::vector<ir::TensorId> outs;
  const ir::DType dtype = ctx.graph.tensor(x->id).dtype;
  const std::optional<ir::QuantParams> quant = ctx.graph.tensor(x->id).quant;
  for (int i = 0; i < ctx.node().output_size(); ++i) {
    const std::string name = ctx.node().output(i).empty() ? ctx.node_name() + "/unused" + std::to_string(i) : ctx.node().output(i);
    outs.push_back(ctx.add_activation(name, dtype, quant));
  }
  const Perm perm = x->perm;
  const ir::TensorId xid = x->id;
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kSplit, {xid}, outs, ir::SplitAttrs{axis, sizes}));
  for (size_t i = 0; i < outs.size(); ++i) TINYFIT_RETURN_IF_ERROR(bind_output(ctx, static_cast<int>(i), outs[i], perm));
  return {};
}

// Per-axis begin/end/step, normalised (ONNX clamps out-of-range bounds).
Status convert_slice(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.input(0));
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    starts = attr_ints(ctx.node(), "starts").value_or(std::vector<int64_t>{});
    ends = attr_ints(ctx.node(), "ends").value_or(std::vector<int64_t>{});
    axes = attr_ints(ctx.node(), "axes").value_or(std::vector<int64_t>{});
  } else {
    TINYFIT_ASSIGN_OR_RETURN(auto s, ctx.constant_input(1));
    TINYFIT_ASSIGN_OR_RETURN(auto e, ctx.constant_input(2));
    starts = s->to_ints();
    ends = e->to_ints();
    if (ctx.has_input(3)) {
      TINYFIT_ASSIGN_OR_RETURN(auto a, ctx.constant_input(3));
      axes = a->to_ints();
    }
    if (ctx.has_input(4)) {
      TINYFIT_ASSIGN_OR_RETURN(auto st, ctx.constant_input(4));
      steps = st->to_ints();
    }
  }
  const ir::Shape& shape = x->is_constant ? x->constant->shape : x->logical_shape;
  const auto rank = static_cast<int64_t>(shape.size());
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return ctx.error("starts, ends, axes and steps differ in length");
  }
  ir::SliceAttrs logical;
  logical.begin.assign(shape.size(), 0);
  logical.end = shape;
  logical.step.assign(shape.size(), 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes[i];
    if (a < -rank || a >= rank) return ctx.error("axis " + std::to_string(a) + " out of range");
    if (a < 0) a += rank;
    const int64_t n = shape[static_cast<size_t>(a)];
    if (steps[i] < 1) return ctx.error("only positive slice steps are supported");
    auto clamp = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
    logical.begin[static_cast<size_t>(a)] = clamp(starts[i]);
    logical.end[static_cast<size_t>(a)] = std::max(clamp(ends[i]), clamp(starts[i]));
    logical.step[static_cast<size_t>(a)] = steps[i];
  }
  if (x->is_constant) {
    // Shape subgraphs slice small 1-D constants.
    if (shape.size() != 1) return ctx.error("slicing constants of rank > 1 is not supported");
    const auto v = x->constant->to_ints();
    std::vector<int64_t> out;
    for (int64_t i = logical.begin[0]; i < logical.end[0]; i += logical.step[0]) out.push_back(v[static_cast<size_t>(i)]);
    if (x->constant->dtype != ir::DType::kI64) return ctx.error("slicing non-int64 constants is not supported");
    return ctx.set_constant_output(0, make_i64_const(out, {static_cast<int64_t>(out.size())}));
  }
  ir::SliceAttrs stored;
  for (int axis : x->perm) {
    stored.begin.push_back(logical.begin[static_cast<size_t>(axis)]);
    stored.end.push_back(logical.end[static_cast<size_t>(axis)]);
    stored.step.push_back(logical.step[static_cast<size_t>(axis)]);
  }
  const ir::Tensor& xt = ctx.graph.tensor(x->id);
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), xt.dtype, xt.quant);
  const Perm perm = x->perm;
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kSlice, {x->id}, {out}, stored));
  return bind_output(ctx, 0, out, perm);
}

Status convert_pad(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.activation_input(0));
  const std::string mode = attr_string(ctx.node(), "mode", "constant");
  if (mode != "constant") return ctx.error("pad mode '" + mode + "' is not supported (constant only)");
  std::vector<int64_t> pads;
  float value = 0.0f;
  if (ctx.opset() < 11) {
    pads = attr_ints(ctx.node(), "pads").value_or(attr_ints(ctx.node(), "paddings").value_or(std::vector<int64_t>{}));
    value = attr_float(ctx.node(), "value", 0.0f);
  } else {
    TINYFIT_ASSIGN_OR_RETURN(auto p, ctx.constant_input(1));
    pads = p->to_ints();
    if (ctx.has_input(2)) {
      TINYFIT_ASSIGN_OR_RETURN(const Value* v, ctx.input(2));
      if (!v->is_constant || v->constant->num_elements() != 1) return ctx.error("constant_value must be a scalar constant");
      value = static_cast<float>(v->constant->to_doubles()[0]);
    }
    if (ctx.has_input(3)) return ctx.error("Pad with an axes input is not supported");
  }
  const size_t rank = x->logical_shape.size();
  if (pads.size() != 2 * rank) return ctx.error("pads must have " + std::to_string(2 * rank) + " entries");
  ir::PadAttrs attrs;
  for (int axis : x->perm) {
    attrs.before.push_back(pads[static_cast<size_t>(axis)]);
    attrs.after.push_back(pads[rank + static_cast<size_t>(axis)]);
  }
  attrs.value = value;
  const ir::Tensor& xt = ctx.graph.tensor(x->id);
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), xt.dtype, xt.quant);
  const Perm perm = x->perm;
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kPad, {x->id}, {out}, attrs));
  return bind_output(ctx, 0, out, perm);
}

// out logical axis j = in logical axis p[j]; the stored bytes stay, so stored
// axis i (= in logical q[i]) is out logical p^-1[q[i]].
Status convert_transpose(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.activation_input(0));
  const size_t rank = x->logical_shape.size();
  Perm p;
  if (auto a = attr_ints(ctx.node(), "perm")) {
    p.assign(a->begin(), a->end());
  } else {
    for (size_t i = rank; i-- > 0;) p.push_back(static_cast<int>(i));
  }
  Perm sorted = p;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != identity_perm(rank)) return ctx.error("perm is not a permutation of the " + std::to_string(rank) + " axes");
  const Perm inv = invert_perm(p);
  Value out = *x;
  for (size_t i = 0; i < rank; ++i) out.perm[i] = inv[static_cast<size_t>(x->perm[i])];
  for (size_t j = 0; j < rank; ++j) out.logical_shape[j] = x->logical_shape[static_cast<size_t>(p[j])];
  out.pending_names.push_back(ctx.node_name());
  return ctx.set_output(0, std::move(out));
}

}  // namespace

Status convert_data_movement(Context& ctx, const std::string& op) {
  if (op == "Concat") return convert_concat(ctx);
  if (op == "Split") return convert_split(ctx);
  if (op == "Slice") return convert_slice(ctx);
  if (op == "Pad") return convert_pad(ctx);
  return convert_transpose(ctx);
}

}  // namespace tinyfit::import::onnx_detail
