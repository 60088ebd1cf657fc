// Operators that move or reinterpret data without arithmetic: Concat, Split,
// Slice, Reshape (an alias), Transpose, Pad and ChannelShuffle.
#include <algorithm>
#include <numeric>

#include "ir/ops/decl_helpers.h"
#include "support/checked_math.h"

namespace tinyfit::ir::ops {
namespace {

int64_t no_macs(const Graph&, const Node&) { return 0; }
OpKind kind_other(const Graph&, const Node&) { return OpKind::kOther; }

// --- Concat -------------------------------------------------------------------

Result<std::vector<Shape>> infer_concat(const Graph& graph, const Node& node) {
  if (node.inputs.empty()) return fail("expected at least 1 input, got 0");
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, node.inputs.size(), node.inputs.size()));
  const int axis = node.attr<ConcatAttrs>().axis;
  Shape out = graph.input_tensor(node, 0).shape;
  if (axis < 0 || axis >= static_cast<int>(out.size())) {
    return fail("axis " + str(axis) + " out of range for shape " + format_shape(out));
  }
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    const Shape& s = graph.input_tensor(node, i).shape;
    bool compatible = s.size() == out.size();
    for (size_t d = 0; compatible && d < s.size(); ++d) {
      compatible = static_cast<int>(d) == axis || s[d] == out[d];
    }
    if (!compatible) {
      return fail("input " + str(static_cast<int64_t>(i)) + " shape " + format_shape(s) +
                  " does not match " + format_shape(graph.input_tensor(node, 0).shape) +
                  " outside axis " + str(axis));
    }
    out[axis] += s[axis];
  }
  return std::vector<Shape>{out};
}

// Output axis `axis` reads each input over its own sub-range; the other axes
// are identities for every input.
AxisMap axes_concat(const Graph& graph, const Node& node) {
  AxisMap map;
  const int axis = node.attr<ConcatAttrs>().axis;
  for (size_t in = 0; in < node.inputs.size(); ++in) {
    const size_t rank = graph.input_tensor(node, in).shape.size();
    for (size_t d = 0; d < rank; ++d) {
      if (static_cast<int>(d) == axis) continue;
      map.links.push_back({static_cast<int>(d), static_cast<int>(in), static_cast<int>(d),
                           AxisRole::kIdentity, {}, 1, false});
    }
  }
  return map;
}

// --- Split ---------------------------------------------------------------------

Result<std::vector<Shape>> infer_split(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  const auto& a = node.attr<SplitAttrs>();
  const Shape& x = graph.input_tensor(node, 0).shape;
  if (a.axis < 0 || a.axis >= static_cast<int>(x.size())) {
    return fail("axis " + str(a.axis) + " out of range for shape " + format_shape(x));
  }
  if (a.sizes.size() != node.outputs.size()) {
    return fail(str(static_cast<int64_t>(a.sizes.size())) + " split sizes for " +
                str(static_cast<int64_t>(node.outputs.size())) + " outputs");
  }
  int64_t total = 0;
  std::vector<Shape> outs;
  for (int64_t size : a.sizes) {
    if (size < 0) return fail("split size " + str(size) + " is negative");
    total += size;
    Shape s = x;
    s[a.axis] = size;
    outs.push_back(s);
  }
  if (total != x[a.axis]) {
    return fail("split sizes sum to " + str(total) + ", axis extent is " + str(x[a.axis]));
  }
  return outs;
}

AxisMap axes_split(const Graph& graph, const Node& node) {
  AxisMap map;
  const int axis = node.attr<SplitAttrs>().axis;
  const size_t rank = graph.input_tensor(node, 0).shape.size();
  for (size_t d = 0; d < rank; ++d) {
    if (static_cast<int>(d) != axis) {
      map.links.push_back({static_cast<int>(d), 0, static_cast<int>(d), AxisRole::kIdentity, {}, 1, false});
    }
  }
  return map;
}

// --- Slice ---------------------------------------------------------------------

Result<std::vector<Shape>> infer_slice(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  const auto& a = node.attr<SliceAttrs>();
  const Shape& x = graph.input_tensor(node, 0).shape;
  if (a.begin.size() != x.size() || a.end.size() != x.size() || a.step.size() != x.size()) {
    return fail("slice bounds must have one entry per axis of " + format_shape(x));
  }
  Shape out(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    if (a.step[d] < 1 || a.begin[d] < 0 || a.end[d] > x[d] || a.begin[d] > a.end[d]) {
      return fail("slice [" + str(a.begin[d]) + ":" + str(a.end[d]) + ":" + str(a.step[d]) +
                  "] invalid for axis " + str(static_cast<int64_t>(d)) + " of extent " + str(x[d]));
    }
    out[d] = (a.end[d] - a.begin[d] + a.step[d] - 1) / a.step[d];
  }
  return std::vector<Shape>{out};
}

AxisMap axes_slice(const Graph& graph, const Node& node) {
  const auto& a = node.attr<SliceAttrs>();
  AxisMap map;
  for (size_t d = 0; d < a.begin.size(); ++d) {
    // out[i] = in[begin + i*step]: a window of one element, negative padding.
    AxisLink link{static_cast<int>(d), 0, static_cast<int>(d), AxisRole::kWindow,
                  {1, a.step[d], 1, -a.begin[d]}, 1, false};
    if (a.begin[d] == 0 && a.step[d] == 1) link.role = AxisRole::kIdentity;
    map.links.push_back(link);
  }
  (void)graph;
  return map;
}

// A window of one row: the copy's slice starts `-before` rows into its input
// and ends `after` rows before the input's end (never past it: a slice does
// not pad).
void set_slice_row_padding(Node& node, int64_t before, int64_t after, int64_t input_rows) {
  auto& a = std::get<SliceAttrs>(node.attrs);
  constexpr size_t kRowAxis = 1;  // NHWC
  a.begin[kRowAxis] = -before;
  a.end[kRowAxis] = input_rows + after;
}

// --- Reshape (alias) -----------------------------------------------------------

// The target shape is the output tensor's declared shape (set by the importer).
Result<std::vector<Shape>> infer_reshape(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  const Tensor& x = graph.input_tensor(node, 0);
  const Tensor& y = graph.output_tensor(node, 0);
  auto elements = checked_product(y.shape);
  if (!elements || *elements != x.num_elements()) {
    return fail("cannot reshape " + format_shape(x.shape) + " to " + format_shape(y.shape));
  }
  return std::vector<Shape>{y.shape};
}

// An axis survives a reshape when the input has an axis of the same extent
// whose elements before it and after it multiply to the same counts ([1,512,128]
// to [1,512,2,64] keeps the token axis): index i of it is index i of the input.
// Every other output axis mixes input axes and has no link.
AxisMap axes_reshape(const Graph& graph, const Node& node) {
  const Shape& x = graph.input_tensor(node, 0).shape;
  const Shape& y = graph.output_tensor(node, 0).shape;
  auto prefix_products = [](const Shape& shape) {
    std::vector<int64_t> prefix(shape.size() + 1, 1);
    for (size_t d = 0; d < shape.size(); ++d) prefix[d + 1] = prefix[d] * shape[d];
    return prefix;
  };
  const std::vector<int64_t> px = prefix_products(x);
  const std::vector<int64_t> py = prefix_products(y);
  AxisMap map;
  for (size_t out = 0; out < y.size(); ++out) {
    for (size_t in = 0; in < x.size(); ++in) {
      if (x[in] == y[out] && px[in] == py[out]) {
        map.links.push_back({static_cast<int>(out), 0, static_cast<int>(in), AxisRole::kIdentity, {}, 1, false});
        break;
      }
    }
  }
  return map;
}

// --- Transpose -----------------------------------------------------------------

Result<std::vector<Shape>> infer_transpose(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  const auto& perm = node.attr<TransposeAttrs>().perm;
  const Shape& x = graph.input_tensor(node, 0).shape;
  std::vector<int> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> expected(x.size());
  std::iota(expected.begin(), expected.end(), 0);
  if (sorted != expected) {
    return fail("perm is not a permutation of the " + str(static_cast<int64_t>(x.size())) + " axes");
  }
  Shape out(x.size());
  for (size_t d = 0; d < x.size(); ++d) out[d] = x[perm[d]];
  return std::vector<Shape>{out};
}

AxisMap axes_transpose(const Graph&, const Node& node) {
  AxisMap map;
  const auto& perm = node.attr<TransposeAttrs>().perm;
  for (size_t d = 0; d < perm.size(); ++d) {
    map.links.push_back({static_cast<int>(d), 0, perm[d], AxisRole::kIdentity, {}, 1, false});
  }
  return map;
}

// --- Pad -----------------------------------------------------------------------

Result<std::vector<Shape>> infer_pad(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  const auto& a = node.attr<PadAttrs>();
  const Shape& x = graph.input_tensor(node, 0).shape;
  if (a.before.size() != x.size() || a.after.size() != x.size()) {
    return fail("pads must have one entry per axis of " + format_shape(x));
  }
  Shape out(x.size());
  for (size_t d = 0; d < x.size(); ++d) {
    if (a.before[d] < 0 || a.after[d] < 0) return fail("negative padding is not supported");
    auto padded = checked_add(x[d], a.before[d] + a.after[d]);
    if (!padded) return fail("padded extent overflows");
    out[d] = *padded;
  }
  return std::vector<Shape>{out};
}

AxisMap axes_pad(const Graph&, const Node& node) {
  const auto& a = node.attr<PadAttrs>();
  AxisMap map;
  for (size_t d = 0; d < a.before.size(); ++d) {
    AxisLink link{static_cast<int>(d), 0, static_cast<int>(d), AxisRole::kWindow, {1, 1, 1, a.before[d]}, 1, false};
    if (a.before[d] == 0 && a.after[d] == 0) link.role = AxisRole::kIdentity;
    map.links.push_back(link);
  }
  return map;
}

OpKind kind_pad(const Graph& graph, const Node& node) {
  const auto& a = node.attr<PadAttrs>();
  const size_t last = graph.input_tensor(node, 0).shape.size() - 1;
  return a.before[last] == 0 && a.after[last] == 0 ? OpKind::kChannelwise : OpKind::kOther;
}

// --- ChannelShuffle --------------------------------------------------------------

Result<std::vector<Shape>> infer_channel_shuffle(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  const Shape& x = graph.input_tensor(node, 0).shape;
  const int64_t groups = node.attr<ChannelShuffleAttrs>().groups;
  if (x.empty()) return fail("a channel shuffle needs an input of rank >= 1");
  if (groups < 1 || x.back() % groups != 0) {
    return fail(str(groups) + " groups do not divide " + str(x.back()) + " channels");
  }
  return std::vector<Shape>{x};
}

// Every axis but the channels is an identity; output channel c reads input
// channel (c % groups) * (C / groups) + c / groups, a permutation.
AxisMap axes_channel_shuffle(const Graph& graph, const Node& node) {
  AxisMap map;
  const size_t rank = graph.input_tensor(node, 0).shape.size();
  for (size_t d = 0; d + 1 < rank; ++d) {
    map.links.push_back({static_cast<int>(d), 0, static_cast<int>(d), AxisRole::kIdentity, {}, 1, false});
  }
  const int last = static_cast<int>(rank) - 1;
  map.links.push_back({last, 0, last, AxisRole::kPermuted, {}, node.attr<ChannelShuffleAttrs>().groups, false});
  return map;
}

}  // namespace

const OpDecl& concat_decl() {
  // Fuses a following clamp (an ONNX Relu after a Concat; TFLite's
  // ConcatenationOptions has the field too), applied to the output.
  static const OpDecl decl{"Concat", infer_concat, no_macs, kind_other, axes_concat, InplaceRule::kNever, false, true};
  return decl;
}
const OpDecl& split_decl() {
  static const OpDecl decl{"Split", infer_split, no_macs, kind_other, axes_split, InplaceRule::kNever, false};
  return decl;
}
const OpDecl& slice_decl() {
  static const OpDecl decl{"Slice",    infer_slice, no_macs, kind_other, axes_slice, InplaceRule::kForwardCopy,
                           false,      false,       set_slice_row_padding};
  return decl;
}
const OpDecl& reshape_decl() {
  static const OpDecl decl{"Reshape", infer_reshape, no_macs, kind_other, axes_reshape, InplaceRule::kNever, true};
  return decl;
}
const OpDecl& transpose_decl() {
  static const OpDecl decl{"Transpose", infer_transpose, no_macs, kind_other, axes_transpose, InplaceRule::kNever, false};
  return decl;
}
const OpDecl& pad_decl() {
  static const OpDecl decl{"Pad", infer_pad, no_macs, kind_pad, axes_pad, InplaceRule::kNever, false};
  return decl;
}
const OpDecl& channel_shuffle_decl() {
  static const OpDecl decl{"ChannelShuffle", infer_channel_shuffle, no_macs, kind_other, axes_channel_shuffle,
                           InplaceRule::kNever, false};
  return decl;
}

}  // namespace tinyfit::ir::ops
