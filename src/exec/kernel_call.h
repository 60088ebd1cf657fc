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
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/op_decl.h"
#include "plan/plan.h"
#include "support/diag.h"
#include "tinyfit/runtime.h"

namespace tinyfit::exec {

// What one invocation sees: the call's views resolved for this iteration
// (pointers into the arena, swept axes cut to this iteration, each with the
// global origin of its first element: plan::resolve_view), in the order of
// plan::KernelCall::inputs / outputs, and the chunk of the innermost channel
// loop around the call.
struct KernelViews {
  std::span<const tf_view> inputs;
  std::span<const tf_view> outputs;
  uint8_t* workspace = nullptr;       // the call's workspace buffer, or nullptr
  int64_t workspace_bytes = 0;
  // Inside a channel loop: the range [begin, end) this iteration covers of
  // that loop's extent (kChunk: output channels; kAccumulate: input channels
  // of the node). Otherwise {0, 0}. Rows and cols are the views' (origin).
  ir::Range chunk;
  bool first_iteration = true;        // of that loop: kAccumulate starts from zero
};

// Code generation's side of a call (implemented by codegen/): generated code
// makes the same runtime call as PreparedKernel::run, with the constants it
// needs defined once in flash. Names returned are C identifiers; expressions
// are C expressions valid inside the generated call site.
class CallEmitter {
 public:
  virtual ~CallEmitter() = default;
  // Defines a `static const <element_c_type> name[]` (flash) holding `bytes`
  // reinterpreted as little-endian elements of that type; identical arrays are
  // defined once. `hint` seeds the name ("conv1_weights").
  virtual std::string define_array(std::string_view element_c_type, std::string_view hint,
                                   std::span<const uint8_t> bytes) = 0;
  // Defines a `static const <struct_c_type> name = { .field = value, ... }`
  // from (field, C expression) pairs, in that order.
  virtual std::string define_struct(std::string_view struct_c_type, std::string_view hint,
                                    const std::vector<std::pair<std::string, std::string>>& fields) = 0;
  // `const tf_view*` expressions of this iteration's views (KernelViews order).
  virtual std::string input_view(size_t i) const = 0;
  virtual std::string output_view(size_t i) const = 0;
  virtual std::string workspace() const = 0;        // uint8_t* (or NULL)
  virtual std::string workspace_bytes() const = 0;  // int32_t
  virtual std::string chunk_begin() const = 0;      // int32_t, as KernelViews::chunk (innermost channel loop)
  virtual std::string chunk_end() const = 0;
  virtual std::string first_iteration() const = 0;  // int (0 or 1)
  // The header that declares `function`, and the call statement itself.
  virtual void call(std::string_view header, std::string_view function,
                    const std::vector<std::string>& arguments) = 0;
};

class PreparedKernel {
 public:
  virtual ~PreparedKernel() = default;
  // The runtime function it calls ("tf_qs8_conv2d_direct").
  virtual std::string_view kernel_name() const = 0;
  // Requires: views shaped as the plan call promised (verify_plan).
  virtual void run(const KernelViews& views) const = 0;
  // Emits the same call for generated code (codegen/). A kernel without an
  // emitter says so (exit 2) rather than emit something different from run().
  virtual Status emit(CallEmitter& emitter) const;
};

// Everything a binding needs to know about the call.
struct KernelCallContext {
  const ir::Graph& graph;
  const plan::Plan& plan;
  const plan::KernelCall& call;
  // The kernel is only asked which runtime calls it makes and on which views
  // (exec/plan_work.h), never run: constants need not be re-laid for their
  // primitive (a float Winograd transform per call counted was most of a
  // light VGG19 compile once its weights were no longer copied).
  bool lists_calls_only = false;

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
// elementwise: Add, Sub, Mul, Div, Clip, Sigmoid, HardSwish, Sqrt, Rsqrt, Erf,
// Gelu, Quantize, Dequantize.
Result<std::unique_ptr<PreparedKernel>> prepare_elementwise_kernel(const KernelCallContext& context);
// normalization: Softmax, Lrn.
Result<std::unique_ptr<PreparedKernel>> prepare_normalization_kernel(const KernelCallContext& context);
// data movement: Concat, Split, Slice, Transpose, Pad, ChannelShuffle,
// and kCopy calls (no node).
Result<std::unique_ptr<PreparedKernel>> prepare_data_movement_kernel(const KernelCallContext& context);
// segment (bind_segment.cc): a call with a declared overlap (its node's
// overlap-tolerant kernel), and a fused call (the inverted bottleneck).
Result<std::unique_ptr<PreparedKernel>> prepare_segment_kernel(const KernelCallContext& context);
Result<std::unique_ptr<PreparedKernel>> prepare_inverted_bottleneck_kernel(const KernelCallContext& context);
// resize: Resize (nearest, bilinear).
Result<std::unique_ptr<PreparedKernel>> prepare_resize_kernel(const KernelCallContext& context);
// Transformer operators, one file each: MatMul, LayerNorm, Gather.
Result<std::unique_ptr<PreparedKernel>> prepare_matmul_kernel(const KernelCallContext& context);
Result<std::unique_ptr<PreparedKernel>> prepare_layer_norm_kernel(const KernelCallContext& context);
Result<std::unique_ptr<PreparedKernel>> prepare_gather_kernel(const KernelCallContext& context);

// A tf_view of `view` (rank <= 4, left-padded with extent 1, origin 0 there)
// on `base`, which points at the view's buffer start in the arena; the
// element size is the buffer's dtype size.
tf_view make_tf_view(const plan::ViewInstance& view, uint8_t* buffer_base, ir::DType dtype);

// The call computes a part of its output's rows or cols: its output view
// sweeps axis 1 or 2 of a rank-4 tensor (a row or col loop). Window kernels
// then take every range from their views' origins (the *_rows kernels).
bool computes_rows_or_cols(const plan::KernelCall& call);

// Whether prepare_kernel serves calls of `node` that each compute a range of
// its output rows from the rows of its inputs (a row loop,
// plan/lower_row_loop.h): the window kernels' *_rows forms (Conv2D,
// DepthwiseConv2D, MaxPool, AveragePool) and the element-wise kernels, which
// take any view. The partition searches ask it before proposing a loop.
bool serves_output_rows(const ir::Node& node);

// Whether prepare_kernel serves calls of `node` in a loop over tokens
// (plan::LoopAxis::kTokens): each call computes the tokens its output view
// shows from the views of its inputs (the same tokens, or a whole input such
// as attention's keys). Those of serves_output_rows, and the kernels that
// take any views and read no origin: FullyConnected (the tokens are its
// batch), MatMul (the rows of its first operand), Softmax and LayerNorm
// (each token's row is normalised alone), Transpose.
bool serves_output_tokens(const ir::Node& node);

// The standard error of a binding that has no kernel for what it was asked.
tl::unexpected<Diag> fail_no_kernel(const KernelCallContext& context, std::string_view what);

}  // namespace tinyfit::exec
