#include "ir/ops/decl_helpers.h"

#include <algorithm>

namespace tinyfit::ir::ops {

Status expect_inputs(const Node& node, size_t min_count, size_t max_count) {
  if (node.inputs.size() < min_count || node.inputs.size() > max_count) {
    std::string expected = min_count == max_count
                               ? str(static_cast<int64_t>(min_count))
                               : str(static_cast<int64_t>(min_count)) + " to " +
                                     str(static_cast<int64_t>(max_count));
    return fail("expected " + expected + " inputs, got " +
                str(static_cast<int64_t>(node.inputs.size())));
  }
  for (size_t i = 0; i < min_count; ++i) {
    if (node.inputs[i] == kNoTensor) return fail("required input " + str(static_cast<int64_t>(i)) + " is missing");
  }
  if (node.outputs.empty()) return fail("has no outputs");
  return {};
}

Status expect_rank(const Graph& graph, TensorId id, size_t rank, std::string_view what) {
  const Tensor& t = graph.tensor(id);
  if (t.shape.size() != rank) {
    return fail(std::string(what) + " '" + t.name + "' must have rank " +
                str(static_cast<int64_t>(rank)) + ", got shape " + format_shape(t.shape));
  }
  return {};
}

Result<int64_t> windowed_extent(int64_t input, int64_t kernel, int64_t stride, int64_t dilation,
                                int64_t pad_before, int64_t pad_after, std::string_view axis) {
  if (kernel < 1 || stride < 1 || dilation < 1 || pad_before < 0 || pad_after < 0) {
    return fail(std::string(axis) + ": kernel " + str(kernel) + ", stride " + str(stride) +
                ", dilation " + str(dilation) + " and padding " + str(pad_before) + "/" +
                str(pad_after) + " must be positive (padding non-negative)");
  }
  const int64_t span = (kernel - 1) * dilation + 1;
  const int64_t padded = input + pad_before + pad_after;
  if (span > padded) {
    return fail(std::string(axis) + ": window of " + str(span) + " does not fit the padded input of " +
                str(padded));
  }
  return (padded - span) / stride + 1;
}

Result<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return fail("shapes " + format_shape(a) + " and " + format_shape(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

AxisMap identity_axis_map(const Graph& graph, const Node& node, size_t rank) {
  AxisMap map;
  for (size_t in = 0; in < node.inputs.size(); ++in) {
    if (node.inputs[in] == kNoTensor) continue;
    const Tensor& t = graph.tensor(node.inputs[in]);
    if (t.is_constant) continue;  // weights and constants are not traced
    const size_t offset = rank - std::min(rank, t.shape.size());
    for (size_t axis = offset; axis < rank; ++axis) {
      AxisLink link;
      link.output_axis = static_cast<int>(axis);
      link.input_index = static_cast<int>(in);
      link.input_axis = static_cast<int>(axis - offset);
      link.role = AxisRole::kIdentity;
      const Tensor& out = graph.tensor(node.outputs[0]);
      link.broadcast = t.shape[axis - offset] == 1 && out.shape[axis] != 1;
      map.links.push_back(link);
    }
  }
  return map;
}

int64_t output_elements(const Graph& graph, const Node& node) {
  int64_t total = 0;
  for (TensorId id : node.outputs) {
    if (id != kNoTensor) total += graph.tensor(id).num_elements();
  }
  return total;
}

}  // namespace tinyfit::ir::ops
