// Constant folding at import: Constant / ConstantOfShape weights (the light_*
// models build every weight that way) and shape subgraphs
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) over static shapes.
// Folded nodes are listed in the source_nodes of the first operator that uses
// their result.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>

#include "import/onnx_context.h"
#include "support/checked_math.h"

namespace tinyfit::import::onnx_detail {
namespace {

bool all_inputs_constant(const Context& ctx) {
  for (const auto& in : ctx.node().input()) {
    if (in.empty()) continue;
    auto it = ctx.values.find(in);
    if (it == ctx.values.end() || !it->second.is_constant) return false;
  }
  return true;
}

ConstValue from_doubles(ir::DType dtype, const std::vector<double>& values, ir::Shape shape) {
  if (dtype == ir::DType::kF32) {
    std::vector<float> f(values.begin(), values.end());
    return make_f32_const(f, std::move(shape));
  }
  std::vector<int64_t> i(values.size());
  for (size_t k = 0; k < values.size(); ++k) i[k] = static_cast<int64_t>(values[k]);
  ConstValue v = make_i64_const(i, std::move(shape));
  if (dtype == ir::DType::kI64) return v;
  // Narrow integer types keep their own element size.
  ConstValue out{dtype, v.shape, {}};
  const auto size = static_cast<size_t>(ir::dtype_size_bytes(dtype));
  for (int64_t x : i) {
    const auto* p = reinterpret_cast<const uint8_t*>(&x);  // little-endian host
    out.data.insert(out.data.end(), p, p + size);
  }
  return out;
}

Result<ConstValue> fold_binary(Context& ctx, const ConstValue& a, const ConstValue& b, const std::string& op) {
  const size_t rank = std::max(a.shape.size(), b.shape.size());
  ir::Shape as(rank - a.shape.size(), 1), bs(rank - b.shape.size(), 1), out(rank);
  as.insert(as.end(), a.shape.begin(), a.shape.end());
  bs.insert(bs.end(), b.shape.begin(), b.shape.end());
  for (size_t i = 0; i < rank; ++i) {
    if (as[i] != bs[i] && as[i] != 1 && bs[i] != 1) return ctx.error("constant operands do not broadcast");
    out[i] = as[i] == 1 ? bs[i] : as[i];
  }
  const auto count = checked_product(out);
  if (!count) return ctx.error("constant result is too large");
  const auto av = a.to_doubles(), bv = b.to_doubles();
  const auto sa = ir::compute_strides(as), sb = ir::compute_strides(bs), so = ir::compute_strides(out);
  std::vector<double> r(static_cast<size_t>(*count));
  const bool integer = a.dtype != ir::DType::kF32;
  for (int64_t o = 0; o < *count; ++o) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t idx = (o / so[d]) % out[d];
      if (as[d] != 1) ia += idx * sa[d];
      if (bs[d] != 1) ib += idx * sb[d];
    }
    const double x = av[static_cast<size_t>(ia)], y = bv[static_cast<size_t>(ib)];
    double v = 0;
    if (op == "Add") v = x + y;
    else if (op == "Sub") v = x - y;
    else if (op == "Mul") v = x * y;
    else {
      if (y == 0) return ctx.error("division by zero in a constant expression");
      v = integer ? std::trunc(x / y) : x / y;
    }
    r[static_cast<size_t>(o)] = v;
  }
  return from_doubles(a.dtype, r, out);
}

Result<ConstValue> fold_gather(Context& ctx, const ConstValue& data, const ConstValue& indices) {
  const auto rank = static_cast<int64_t>(data.shape.size());
  int64_t axis = attr_int(ctx.node(), "axis", 0);
  if (rank == 0 || axis < -rank || axis >= rank) return ctx.error("gather axis out of range");
  if (axis < 0) axis += rank;
  const int64_t extent = data.shape[static_cast<size_t>(axis)];
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= data.shape[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= data.shape[static_cast<size_t>(d)];
  const auto idx = indices.to_ints();
  ir::Shape out(data.shape.begin(), data.shape.begin() + axis);
  out.insert(out.end(), indices.shape.begin(), indices.shape.end());
  out.insert(out.end(), data.shape.begin() + axis + 1, data.shape.end());
  const auto elem = static_cast<size_t>(ir::dtype_size_bytes(data.dtype));
  ConstValue r{data.dtype, out, {}};
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : idx) {
      if (i < -extent || i >= extent) return ctx.error("gather index " + std::to_string(i) + " out of range");
      if (i < 0) i += extent;
      const size_t start = static_cast<size_t>((o * extent + i) * inner) * elem;
      r.data.insert(r.data.end(), data.data.begin() + static_cast<ptrdiff_t>(start),
                    data.data.begin() + static_cast<ptrdiff_t>(start + static_cast<size_t>(inner) * elem));
    }
  }
  return r;
}

Result<ConstValue> fold_concat(Context& ctx) {
  std::vector<std::shared_ptr<const ConstValue>> parts;
  for (int i = 0; i < ctx.node().input_size(); ++i) {
    TINYFIT_ASSIGN_OR_RETURN(auto c, ctx.constant_input(i));
    parts.push_back(c);
  }
  if (parts.empty()) return ctx.error("Concat needs inputs");
  const auto rank = static_cast<int64_t>(parts[0]->shape.size());
  int64_t axis = attr_int(ctx.node(), "axis", 0);
  if (rank == 0 || axis < -rank || axis >= rank) return ctx.error("concat axis out of range");
  if (axis < 0) axis += rank;
  ir::Shape out = parts[0]->shape;
  out[static_cast<size_t>(axis)] = 0;
  for (const auto& p : parts) {
    if (p->dtype != parts[0]->dtype || static_cast<int64_t>(p->shape.size()) != rank) {
      return ctx.error("constant concat inputs differ in type or rank");
    }
    out[static_cast<size_t>(axis)] += p->shape[static_cast<size_t>(axis)];
  }
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out[static_cast<size_t>(d)];
  ConstValue r{parts[0]->dtype, out, {}};
  for (int64_t o = 0; o < outer; ++o) {
    for (const auto& p : parts) {
      const size_t chunk = p->data.size() / static_cast<size_t>(std::max<int64_t>(outer, 1));
      r.data.insert(r.data.end(), p->data.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(o) * chunk),
                    p->data.begin() + static_cast<ptrdiff_t>(static_cast<size_t>(o + 1) * chunk));
    }
  }
  return r;
}

Result<ConstValue> fold_constant_of_shape(Context& ctx) {
  TINYFIT_ASSIGN_OR_RETURN(auto shape_value, ctx.constant_input(0));
  ir::Shape shape = shape_value->to_ints();
  if (shape.size() > 8) return ctx.error("rank " + std::to_string(shape.size()) + " exceeds 8");
  ConstValue fill = make_f32_const({0.0f}, {1});
  if (const auto* a = find_attr(ctx.node(), "value")) {
    auto read = read_tensor_proto(a->t());
    if (!read) return ctx.error(read.error().message);
    if (read->num_elements() != 1) return ctx.error("ConstantOfShape value must hold one element");
    fill = *read;
  }
  const auto count = checked_product(shape);
  const auto elem = ir::dtype_size_bytes(fill.dtype);
  const auto bytes = count ? checked_mul(*count, elem) : std::nullopt;
  if (!bytes || *bytes > (int64_t{1} << 30)) return ctx.error("constant of shape " + ir::format_shape(shape) + " is too large");
  ConstValue r{fill.dtype, shape, {}};
  r.data.reserve(static_cast<size_t>(*bytes));
  for (int64_t i = 0; i < *count; ++i) r.data.insert(r.data.end(), fill.data.begin(), fill.data.end());
  return r;
}

Result<ConstValue> fold_constant(Context& ctx) {
  const auto& node = ctx.node();
  if (const auto* a = find_attr(node, "value")) {
    auto read = read_tensor_proto(a->t());
    if (!read) return ctx.error(read.error().message);
    return *read;
  }
  if (const auto* a = find_attr(node, "value_float")) return make_f32_const({a->f()}, {});
  if (const auto* a = find_attr(node, "value_floats")) {
    return make_f32_const({a->floats().begin(), a->floats().end()}, {a->floats_size()});
  }
  if (const auto* a = find_attr(node, "value_int")) return make_i64_const({a->i()}, {});
  if (const auto* a = find_attr(node, "value_ints")) {
    return make_i64_const({a->ints().begin(), a->ints().end()}, {a->ints_size()});
  }
  return ctx.error("Constant has no supported value attribute");
}

}  // namespace

// Shape-changing folds on constants reuse the activation converters' rules
// through convert_shape_op; here only the arithmetic and data ops live.
Result<bool> try_fold_constant_node(Context& ctx) {
  const std::string& op = ctx.node().op_type();
  if (op == "Constant") {
    TINYFIT_ASSIGN_OR_RETURN(ConstValue v, fold_constant(ctx));
    TINYFIT_RETURN_IF_ERROR(ctx.set_constant_output(0, std::move(v)));
    return true;
  }
  if (op == "Shape") {
    TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.input(0));
    ir::Shape shape = x->is_constant ? x->constant->shape : x->logical_shape;
    const auto rank = static_cast<int64_t>(shape.size());
    int64_t start = attr_int(ctx.node(), "start", 0), end = attr_int(ctx.node(), "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    ir::Shape part(shape.begin() + start, shape.begin() + end);
    TINYFIT_RETURN_IF_ERROR(ctx.set_constant_output(0, make_i64_const(part, {static_cast<int64_t>(part.size())})));
    return true;
  }
  if (!all_inputs_constant(ctx) || ctx.node().input_size() == 0) return false;
  if (op == "ConstantOfShape") {
    TINYFIT_ASSIGN_OR_RETURN(ConstValue v, fold_constant_of_shape(ctx));
    TINYFIT_RETURN_IF_ERROR(ctx.set_constant_output(0, std::move(v)));
    return true;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    TINYFIT_ASSIGN_OR_RETURN(auto a, ctx.constant_input(0));
    TINYFIT_ASSIGN_OR_RETURN(auto b, ctx.constant_input(1));
    TINYFIT_ASSIGN_OR_RETURN(ConstValue v, fold_binary(ctx, *a, *b, op));
    TINYFIT_RETURN_IF_ERROR(ctx.set_constant_output(0, std::move(v)));
    return true;
  }
  if (op == "Gather") {
    TINYFIT_ASSIGN_OR_RETURN(auto data, ctx.constant_input(0));
    TINYFIT_ASSIGN_OR_RETURN(auto indices, ctx.constant_input(1));
    TINYFIT_ASSIGN_OR_RETURN(ConstValue v, fold_gather(ctx, *data, *indices));
    TINYFIT_RETURN_IF_ERROR(ctx.set_constant_output(0, std::move(v)));
    return true;
  }
  if (op == "Concat") {
    TINYFIT_ASSIGN_OR_RETURN(ConstValue v, fold_concat(ctx));
    TINYFIT_RETURN_IF_ERROR(ctx.set_constant_output(0, std::move(v)));
    return true;
  }
  if (op == "Cast") {
    TINYFIT_ASSIGN_OR_RETURN(auto x, ctx.constant_input(0));
    bool ok = false;
    const ir::DType to = dtype_from_onnx(static_cast<int32_t>(attr_int(ctx.node(), "to", 1)), &ok);
    if (!ok) return ctx.error("Cast to an unsupported type");
    TINYFIT_RETURN_IF_ERROR(ctx.set_constant_output(0, from_doubles(to, x->to_doubles(), x->shape)));
    return true;
  }
  if (op == "Transpose") {
    TINYFIT_ASSIGN_OR_RETURN(auto x, ctx.constant_input(0));
    Perm perm;
    if (auto p = attr_ints(ctx.node(), "perm")) {
      perm.assign(p->begin(), p->end());
    } else {
      for (size_t i = x->shape.size(); i-- > 0;) perm.push_back(static_cast<int>(i));
    }
    Perm sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != identity_perm(x->shape.size())) return ctx.error("perm is not a permutation of the axes");
    TINYFIT_RETURN_IF_ERROR(ctx.set_constant_output(0, permute_const(*x, perm)));
    return true;
  }
  return false;
}

}  // namespace tinyfit::import::onnx_detail
