// MaxPool / AveragePool (-> kMaxPool / kAveragePool on NHWC),
// GlobalAveragePool (-> kMean over rows and cols, keep_dims) and ReduceMean.
#include <onnx/onnx_pb.h>

#include <algorithm>

#include "import/onnx_context.h"

namespace tinyfit::import::onnx_detail {
namespace {

int64_t pooled_extent(int64_t in, int64_t pad, int64_t k, int64_t s, bool ceil) {
  const int64_t span = in + pad - k;
  if (span < 0) return 0;
  return (ceil ? (span + s - 1) / s : span / s) + 1;
}

Status convert_window_pool(Context& ctx, const std::string& op, const Value& x) {
  if (x.logical_shape.size() != 4) return ctx.error("only 2-D pooling (rank-4 input) is supported");
  TINYFIT_ASSIGN_OR_RETURN(ir::ConvAttrs w, read_window_attrs(ctx, x.logical_shape, 1, 1));
  if (!find_attr(ctx.node(), "kernel_shape")) return ctx.error("kernel_shape is required");
  if (w.dilation_h != 1 || w.dilation_w != 1) return ctx.error("dilated pooling is not supported");
  if (attr_int(ctx.node(), "ceil_mode", 0) != 0) {
    // Ceil mode changes nothing unless the last window starts inside the input.
    const int64_t rows = x.logical_shape[2], cols = x.logical_shape[3];
    if (pooled_extent(rows, w.pad.top + w.pad.bottom, w.kernel_h, w.stride_h, true) !=
            pooled_extent(rows, w.pad.top + w.pad.bottom, w.kernel_h, w.stride_h, false) ||
        pooled_extent(cols, w.pad.left + w.pad.right, w.kernel_w, w.stride_w, true) !=
            pooled_extent(cols, w.pad.left + w.pad.right, w.kernel_w, w.stride_w, false)) {
      return ctx.error("ceil_mode=1 gives a larger output than floor here, which is not supported");
    }
  }
  if (op == "MaxPool" && ctx.node().output_size() > 1 && !ctx.node().output(1).empty()) {
    return ctx.error("MaxPool indices output is not supported");
  }
  ir::PoolAttrs p;
  p.kernel_h = w.kernel_h;
  p.kernel_w = w.kernel_w;
  p.stride_h = w.stride_h;
  p.stride_w = w.stride_w;
  p.pad = w.pad;
  p.count_include_pad = attr_int(ctx.node(), "count_include_pad", 0) != 0;
  TINYFIT_ASSIGN_OR_RETURN(ir::TensorId xid, ensure_perm(ctx, x, nhwc_perm()));
  const ir::Tensor& xt = ctx.graph.tensor(xid);
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), xt.dtype, xt.quant);
  TINYFIT_RETURN_IF_ERROR(ctx.emit(op == "MaxPool" ? ir::OpType::kMaxPool : ir::OpType::kAveragePool, {xid}, {out}, p));
  return bind_output(ctx, 0, out, nhwc_perm());
}

// Mean over logical axes, computed on the stored tensor as it is.
Status convert_mean(Context& ctx, const Value& x, std::vector<int64_t> axes, bool keep_dims) {
  const auto rank = static_cast<int64_t>(x.logical_shape.size());
  std::vector<int> stored;
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    TINYFIT_ASSIGN_OR_RETURN(int s, stored_axis(ctx, x, a));
    stored.push_back(s);
    reduced[static_cast<size_t>(x.perm[static_cast<size_t>(s)])] = true;
  }
  std::sort(stored.begin(), stored.end());
  stored.erase(std::unique(stored.begin(), stored.end()), stored.end());
  const ir::Tensor& xt = ctx.graph.tensor(x.id);
  const ir::TensorId out = ctx.add_activation(ctx.node().output(0), xt.dtype, xt.quant);
  TINYFIT_RETURN_IF_ERROR(ctx.emit(ir::OpType::kMean, {x.id}, {out}, ir::ReduceAttrs{stored, keep_dims}));
  if (keep_dims) return bind_output(ctx, 0, out, x.perm);
  // Surviving axes keep their stored order; renumber their logical indices.
  std::vector<int> new_index(static_cast<size_t>(rank), -1);
  int next = 0;
  for (int64_t a = 0; a < rank; ++a) {
    if (!reduced[static_cast<size_t>(a)]) new_index[static_cast<size_t>(a)] = next++;
  }
  Perm perm;
  for (int a : x.perm) {
    if (!reduced[static_cast<size_t>(a)]) perm.push_back(new_index[static_cast<size_t>(a)]);
  }
  return bind_output(ctx, 0, out, perm);
}

}  // namespace

Status convert_pool(Context& ctx, const std::string& op) {
  TINYFIT_ASSIGN_OR_RETURN(const Value* x, ctx.activation_input(0));
  if (op == "MaxPool" || op == "AveragePool") return convert_window_pool(ctx, op, *x);
  if (op == "GlobalAveragePool") {
    if (x->logical_shape.size() != 4) return ctx.error("GlobalAveragePool needs a rank-4 input");
    return convert_mean(ctx, *x, {2, 3}, true);
  }
  // ReduceMean: axes attribute (opset < 18); all axes when absent.
  std::vector<int64_t> axes;
  if (auto a = attr_ints(ctx.node(), "axes")) {
    axes = *a;
  } else {
    for (int64_t i = 0; i < static_cast<int64_t>(x->logical_shape.size()); ++i) axes.push_back(i);
  }
  return convert_mean(ctx, *x, axes, attr_int(ctx.node(), "keepdims", 1) != 0);
}

}  // namespace tinyfit::import::onnx_detail
