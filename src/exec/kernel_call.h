// The binding between plan calls and runtime kernels: for one plan::KernelCall,
// prepare once what the runtime kernel needs (requantisation multipliers,
// weights in the kernel's layout, clamp ranges: what generated code will keep
// in flash), then run it on views of the arena, once per loop iteration.
//
// One binding file per operator family (bind_<family>.cc) implements the
// prepare_* functions below; prepare_kernel dispatches on the node's OpType.
// The int8 results are bit-identical to the reference interpreter's
// (exec/reference/), which is the oracle; each binding is tested against it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "ir/graph.h"
#include "ir/op_decl.h"
#include "plan/plan.h"
#include "support/diag.h"
#include "tinyfit/runtime.h"

namespace tinyfit::exec {

// What one invocation sees: the call's views resolved for this iteration
// (pointers into the arena, chunk axis cut to the chunk), in the order of
// plan::KernelCall::inputs / outputs, and the iteration's chunk.
struct KernelViews {
  std::span<const tf_view> inputs;
  std::span<const tf_view> outputs;
  uint8_t* workspace = nullptr;       // the call's workspace buffer, or nullptr
  int64_t workspace_bytes = 0;
  // Inside a loop: the channels [begin, end) this iteration covers of the
  // loop's extent (kChunk: output channels; kAccumulate: input channels of
  // the node). Outside a loop: {0, 0}.
  ir::Range chunk;
  bool first_iteration = true;        // kAccumulate starts from zero
};

class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  // The runtime function it calls ("tf_qs8_conv2d_direct").
  virtual std::string_view kernel_name() const = 0;
  // Requires: views shaped as the plan call promised (verify_plan).
  virtual void run(const KernelViews& views) const = 0;
};

// Everything a binding needs to know about the call.
struct KernelCallContext {
  const ir::Graph& graph;
  const plan::Plan& plan;
  const plan::KernelCall& call;

  const ir::Node& node() const { return graph.nodes.at(static_cast<size_t>(call.node)); }
};

// Prepares the call's kernel. A node, dtype or mode no kernel implements is a
// user-visible error naming the node ("node 'x' (Softmax): no runtime kernel
// for u8 in chunk mode"), never a crash.
Result<std::unique_ptr<PreparedKernel>> prepare_kernel(const KernelCallContext& context);

// --- One per family (bind_<family>.cc) -------------------------------------
// conv: Conv2D, DepthwiseConv2D, FullyConnected (all modes).
Result<std::unique_ptr<PreparedKernel>> prepare_conv_kernel(const KernelCallContext& context);
// pool: MaxPool, AveragePool, Mean.
Result<std::unique_ptr<PreparedKernel>> prepare_pool_kernel(const KernelCallContext& context);
// elementwise: Add, Sub, Mul, Clip, Sigmoid, HardSwish.
Result<std::unique_ptr<PreparedKernel>> prepare_elementwise_kernel(const KernelCallContext& context);
// normalization: Softmax, Lrn.
Result<std::unique_ptr<PreparedKernel>> prepare_normalization_kernel(const KernelCallContext& context);
// data movement: Concat, Split, Slice, Transpose, Pad, Quantize, Dequantize,
// and kCopy calls (no node).
Result<std::unique_ptr<PreparedKernel>> prepare_data_movement_kernel(const KernelCallContext& context);

// A tf_view of `view` (rank <= 4, left-padded with extent 1) on `base`, which
// points at the view's buffer start in the arena; the element size is the
// buffer's dtype size.
tf_view make_tf_view(const plan::View& view, uint8_t* buffer_base, ir::DType dtype);

// The standard error of a binding that has no kernel for what it was asked.
tl::unexpected<Diag> fail_no_kernel(const KernelCallContext& context, std::string_view what);

}  // namespace tinyfit::exec
