// The Plan: the one contract between tinyfit's optimisers and its executors
// (DESIGN.md, "The plan is the one contract" and "Plan v2"). A plan is a list
// of steps over named buffers; a step is either one kernel call on views of
// buffers, or a loop that repeats a body of steps over the chunks of one axis.
// Bodies hold steps, so loops nest (a row loop around a channel loop). Loops
// are never unrolled: a loop over 96 channels is one Loop, not 96 calls.
//
// Four ideas, each explicit here so that accounting, placement, verify_plan,
// the executor and the C emitter each handle it once:
//  - loop nests: Loop::body is a list of steps; each loop names the axis it
//    walks (LoopAxis) and its tile;
//  - views that move: a View may follow any enclosing loop on any of its axes
//    (Sweep). The indices it shows there are given by Bounds of the loop's
//    current chunk: the chunk itself (a slice: PEX channels, an output row
//    range), or the input rows a consumer's sliding window needs for its
//    output rows (MemoriaNova eq. 1, composed through a chain of windows by
//    compose_bound), clamped at the borders. A view knows the global index
//    of its first element on every axis (ViewInstance::origin), so a kernel
//    pads correctly at the borders;
//  - carried buffers (BufferRole::kCarried): rows an iteration keeps for the
//    next one. tinyfit keeps them MOTES's way (BlockConcat, §4.4): a kCopy at
//    the start of the iteration moves the retained rows in front of the rows
//    the producer writes next (docs/row_loops.md says why, not folding);
//  - the memory of a loop (plan_memory.h): the largest sum of live bytes at
//    any position of its body, every buffer used in the loop and not local to
//    one iteration being live for the whole loop.
//
// A small example: a row loop over Conv2D c (3x3, stride 1, pad 1) feeding
// DepthwiseConv2D d (3x3, stride 1, pad 1), two output rows of d at a time,
// c's output kept in a carried buffer of 4 rows (plan/lower_row_loop.h):
//     loop rows-0 over rows: 4 iterations over 8 rows, tile 2
//       (copy)  the rows of c's output d still needs, moved to the front
//       c whole  in: rows of x its window needs   out: c's new rows
//       d whole  in: rows of c's output d's window needs   out: d's rows [b, e)
// print_plan shows the exact bounds.
//
// Every optimiser lowers to a Plan; placement (plan_memory.h place_plan)
// gives each buffer an arena offset; verify_plan checks it; the plan executor
// (exec/) and the C emitter (codegen/) consume the same Plan. A Plan refers to
// the ir::Graph it was lowered from by node id, for operator attributes and
// constant weights; the two travel together.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/graph.h"
#include "ir/op_decl.h"
#include "plan/segment_kernel.h"

namespace tinyfit::plan {

using BufferId = int;

enum class BufferRole {
  kModelInput,   // written by the caller before the run
  kModelOutput,  // read by the caller after the run
  kActivation,   // an intermediate tensor, whole
  kPartial,      // a chunk of a tensor inside a loop (PEX t^P): written before it is read in every
                 // iteration of the innermost loop around all its uses, so local to that iteration
  kCarried,      // rows of a tensor a row loop keeps across iterations (BlockConcat's window)
  kAccumulator,  // partial sums of an A-type operator run by input-channel chunks, or of a
                 // global pool run by bands of rows (int32, one per channel)
  kWorkspace,    // kernel scratch (line buffer, im2col)
};
std::string_view buffer_role_name(BufferRole role);

// A region of the arena. Its bytes are what the memory accounting counts.
struct PlanBuffer {
  std::string name;         // the IR tensor it holds, or a derived name ("conv1:acc")
  BufferRole role = BufferRole::kActivation;
  ir::DType dtype = ir::DType::kI8;  // element type of the views onto it
  int64_t bytes = 0;
  int64_t alignment = 4;    // Cortex-M word loads (placement_input.h)
  int64_t offset = -1;      // arena offset, -1 until placed
};

// What a loop walks (for dumps, the latency model and kernel choice). A sweep
// on a view follows a loop on the matching axis: rows and cols are axes 1 and
// 2 of an NHWC view, channels the last axis; tokens are on whichever axis a
// tensor's layout holds them (the second-to-last of [.., tokens, features],
// the first of attention's [tokens, heads, head features]).
enum class LoopAxis { kRows, kCols, kChannels, kTokens };
std::string_view loop_axis_name(LoopAxis axis);

// An index along one tensor axis that moves with one loop: a function of the
// loop's current chunk [chunk_begin, chunk_end) of [0, loop extent), taken at
// x = chunk_begin or x = chunk_end (`of`):
//     x == 0                -> low
//     x == the loop extent  -> high
//     otherwise             -> clamp(scale * floor(x / divisor) + offset, low, high)
// It never decreases as x grows (scale >= 0, divisor >= 1, low <= high). The
// chunk itself is {scale 1, offset 0, low 0, high extent}; a constant c is
// {scale 0, offset c, low c, high c}. A sliding window applied to such a
// bound is again one (compose_bound), which is how the rows of a chain of
// windowed operators follow one loop without unrolling it; the two end cases
// make the first iteration start at row 0 and the last one finish the tensor.
// A divisor above 1 lets a tensor advance slower than the loop: a row loop
// walking `divisor` steps per row of its sink (plan/lower_row_loop.h) gives
// the sink one row every `divisor` steps while its producers before a
// stride-2 window advance one row a step.
enum class BoundOf { kChunkBegin, kChunkEnd };
struct Bound {
  BoundOf of = BoundOf::kChunkBegin;
  int64_t scale = 1;
  int64_t offset = 0;
  int64_t low = 0;
  int64_t high = 0;
  int64_t divisor = 1;

  bool operator==(const Bound&) const = default;
};

// How one axis of a view follows one enclosing loop. In each iteration the
// view shows the tensor indices [first, last) on `axis` (extent max(0, last -
// first)), and the buffer holds index `base` at position 0 of that axis, so
// the view starts (first - base) * strides[axis] elements after
// View::offset_elements. base is the constant 0 for a buffer that holds the
// whole axis, `first` for one that holds only the current chunk (kPartial),
// and the row a carried buffer's window starts at for a kCarried buffer.
struct Sweep {
  int loop = 0;  // the loop's depth among the loops around the call: 0 = outermost
  int axis = 0;  // the view axis
  Bound first;
  Bound last;
  Bound base;

  bool operator==(const Sweep&) const = default;
};

// Elements of a buffer seen as a tensor: offset + shape + strides (elements).
// Views have the rank of the IR tensor they show (NHWC for rank 4; channels
// are the last axis). shape holds the tensor's extents, also on a swept axis,
// whose indices range over [0, shape[axis]] (resolve_view gives the extent
// of one iteration). A view without sweeps is the same in every iteration.
struct View {
  BufferId buffer = -1;
  int64_t offset_elements = 0;  // the element at position 0 of every axis
  ir::Shape shape;              // the tensor's extents
  ir::Shape strides;            // elements per step along each axis
  std::vector<Sweep> sweeps;    // at most one per axis

  int rank() const { return static_cast<int>(shape.size()); }
  // The sweep of `axis`, or nullptr.
  const Sweep* find_sweep(int axis) const;
};

// How a call treats the channels of its node (PEX §3.1 execution rules; the
// Full/Partial continue rules are kWhole and kChunk of a C-type node). Which
// rows and cols it computes is what its output view shows: all of them, or
// the rows a sweep gives in this iteration.
enum class CallMode {
  kWhole,        // every output channel
  kChunk,        // the chunk of output channels the output view shows. C-type: from the same
                 // chunk of input channels (Partial continue); A-type: from whole inputs (Generate)
  kAccumulate,   // A-type: adds the contribution of the chunk of input channels its input
                 // shows to an accumulator view (Accumulate); the first iteration of the
                 // innermost channel loop starts from zero
  kFinalize,     // A-type after its Accumulate loop: bias, requantisation and
                 // activation from the accumulator into the output. A global
                 // pool (partition::accumulates_rows) also runs as kAccumulate
                 // in a row loop (the rows its input view shows; it starts
                 // from them at the tensor's first row) and kFinalize after it
  kCopy,         // no node: copies the input view into the output view (same
                 // shape), to materialise a chunk (Slice / Post-concatenate when
                 // a producer cannot write in place) or to move a carried
                 // buffer's retained rows to its front (BlockConcat: the output
                 // may then start at or before the input in the same buffer)
};
std::string_view call_mode_name(CallMode mode);

// A declared overlap (vMCU; DESIGN.md "Plan v2"): the call's output view
// shares bytes with its input view `input`, its first byte `offset_bytes`
// after that view's first byte (negative: below it), and the call runs its
// segment kernel in `traversal` order (runtime/include/tinyfit/segment.h).
// Safe when the offset is within the kernel's limit (plan/segment_kernel.h),
// which verify_plan re-derives; placement keeps the two views exactly this
// far apart.
struct DeclaredOverlap {
  int input = 0;  // index into KernelCall::inputs
  Traversal traversal = Traversal::kAscending;
  int64_t offset_bytes = 0;
};

struct KernelCall {
  ir::NodeId node = -1;        // the IR node computed; -1 for kCopy
  CallMode mode = CallMode::kWhole;
  // One view per node input that is an activation, in node input order; inputs
  // that are constants or absent have no view (kernels take them from the
  // graph). kAccumulate and kFinalize: accumulator first / last as documented
  // in exec/kernel_call.h.
  std::vector<View> inputs;
  std::vector<View> outputs;   // one per node output; kAccumulate: the accumulator
  BufferId workspace = -1;     // scratch for this call, or -1
  // kAccumulate / kFinalize: bits of the accumulator elements (32: exact; 16
  // or 8: PEX §3.4 reduced precision, not exact).
  int accumulator_bits = 32;
  std::optional<DeclaredOverlap> overlap;
  // The node's weights are stored widened to int16 (a Conv2D's im2col
  // __dsp kernel then widens none: exec/conv_primitive.h kIm2colWideDsp):
  // twice their flash, chosen within a flash budget (driver/widen_weights.h).
  // Other calls ignore it.
  bool wide_weights = false;
  // A fused call (kWhole only) computes `node`, then each of these nodes in
  // order, each reading the one before (the inverted bottleneck: expand,
  // depthwise, project, and an Add of the chain's input). Its inputs are the
  // views of the tensors the chain reads from outside it, in order of first
  // use; its output is the last node's. The tensors between the nodes have no
  // buffer: the kernel keeps what it needs of them in its workspace.
  std::vector<ir::NodeId> fused;

  // `node` and then `fused`: every node the call computes.
  std::vector<ir::NodeId> computed_nodes() const;
  // visit(buffer) for the buffer of every input view, then every output
  // view, then the workspace if the call has one (a buffer as often as the
  // call uses it).
  template <typename Visit>
  void for_each_buffer(Visit&& visit) const {
    for (const View& view : inputs) visit(view.buffer);
    for (const View& view : outputs) visit(view.buffer);
    if (workspace >= 0) visit(workspace);
  }
  // Whether a view of the call or its workspace is in `buffer` (a buffer id,
  // not -1).
  bool uses_buffer(BufferId buffer) const {
    bool used = false;
    for_each_buffer([&](BufferId b) { used = used || b == buffer; });
    return used;
  }
};

struct Step;

// A declared overlap of a row loop (vMCU inside MOTES's row loops, issue 12
// item 5; docs/overlap.md): the whole buffer `output`, which the loop's calls
// write by rows, starts `offset_bytes` after the first byte of the whole
// buffer `input`, which the loop reads by rows and consumes (nothing after the
// loop uses it). A row loop reads its input top to bottom and writes its
// output top to bottom, so the output may overwrite the input rows no later
// read needs: safe when every byte a call writes to `output` lies below every
// byte of `input` read afterwards (plan/lower_row_loop_overlap.h derives the
// limit from the loop's bounds, verify_plan replays the loop's accesses).
// Placement keeps the two buffers exactly this far apart.
struct LoopOverlap {
  BufferId input = -1;
  BufferId output = -1;
  int64_t offset_bytes = 0;

  bool operator==(const LoopOverlap&) const = default;
};

// Repeats `body` ceil(extent / tile) times; iteration i covers the chunk
// [i * tile, min((i + 1) * tile, extent)) of the axis it walks.
struct Loop {
  std::string name;       // for dumps ("pex-loop-3", "rows-0")
  LoopAxis axis = LoopAxis::kChannels;
  int64_t extent = 0;     // steps: elements of the walked axis (a row loop over a chain may walk a
                          // few steps more, while its producers fill: plan/lower_row_loop.h)
  int64_t tile = 1;       // elements per iteration, 1 <= tile <= extent
  std::vector<Step> body;
  std::vector<LoopOverlap> overlaps = {};  // row loops at the plan's top level only
};

struct Step {
  std::variant<KernelCall, Loop> what;

  bool is_loop() const { return std::holds_alternative<Loop>(what); }
  const KernelCall& call() const { return std::get<KernelCall>(what); }
  const Loop& loop() const { return std::get<Loop>(what); }
};

struct Plan {
  std::vector<PlanBuffer> buffers;
  std::vector<Step> steps;
  std::vector<BufferId> inputs;   // one per graph input, in graph order
  std::vector<BufferId> outputs;  // one per graph output, in graph order
  std::vector<std::string> techniques;  // what produced it ("order:exact", "inplace", "pex", "rows")
  int64_t arena_bytes = 0;        // set by placement; 0 before

  int64_t count_calls() const;    // kernel calls per inference (loop bodies once per iteration)
};

// A view of a whole buffer holding a tensor of `shape` (row-major, dense).
View make_dense_view(BufferId buffer, const ir::Shape& shape);

// Iterations of a loop: ceil(extent / tile).
int64_t count_iterations(const Loop& loop);

// The chunk [begin, end) of iteration `i` of a loop.
ir::Range chunk_of_iteration(const Loop& loop, int64_t i);

// --- Bounds ------------------------------------------------------------------

// The chunk's begin or end itself, on an axis of the loop's extent.
Bound make_chunk_bound(BoundOf of, int64_t loop_extent);
Bound make_constant_bound(int64_t value);

// The bound's value in the iteration whose chunk is `chunk` of a loop over
// `loop_extent` elements.
int64_t evaluate_bound(const Bound& bound, ir::Range chunk, int64_t loop_extent);

// clamp(scale * inner + offset, low, high) as one Bound, exactly (scale >= 0,
// low <= high): the composition of two clamped monotone maps is one (the
// inner bound's divisor is kept: the floor applies to x only).
Bound compose_bound(const Bound& inner, int64_t scale, int64_t offset, int64_t low, int64_t high);

// MemoriaNova eq. 1 over bounds: the input indices [first, last) a sliding
// window reads for the output indices [output_first, output_last), clamped to
// [0, input_extent): first = output_first * stride - pad_before, last =
// (output_last - 1) * stride + (kernel - 1) * dilation + 1 - pad_before.
// Exact, except where output_last is clamped at a low end of 0 (no output row
// yet): `last` may then fall below the window of row 0, down to 0, since the
// window of no row reads nothing.
struct BoundRange {
  Bound first;
  Bound last;
};
BoundRange compose_window(const Bound& output_first, const Bound& output_last, const ir::Window& window,
                          int64_t input_extent);

// A sweep showing the loop's chunk itself on `axis` ([chunk_begin,
// chunk_end) of an axis as long as the loop's extent). `holds_chunk_only`:
// the buffer holds only the current chunk (base = first), else the whole
// axis (base 0).
Sweep make_chunk_sweep(int loop, int axis, int64_t loop_extent, bool holds_chunk_only);

// `view` following the chunk of the loop at depth `loop` on `axis`
// (make_chunk_sweep); its extent there becomes the loop's. For a buffer that
// holds only the chunk, pass a view with that buffer's strides (a dense view
// of the chunk's shape).
View follow_chunk(View view, int loop, int axis, int64_t loop_extent, bool holds_chunk_only);

// --- Views in one iteration --------------------------------------------------

// One enclosing loop in one iteration.
struct LoopChunk {
  const Loop* loop = nullptr;
  int64_t iteration = 0;
  ir::Range chunk;
};

// A view as seen in one iteration of the loops around its call: no sweeps
// left, extents of this iteration, and the global index of its first element
// on every axis.
struct ViewInstance {
  BufferId buffer = -1;
  int64_t offset_elements = 0;
  ir::Shape shape;
  ir::Shape strides;
  ir::Shape origin;  // tensor index of the view's element 0 along each axis

  int rank() const { return static_cast<int>(shape.size()); }
  int64_t count_elements() const;
};

// Requires: every sweep names a loop in `nest` (outermost first).
ViewInstance resolve_view(const View& view, std::span<const LoopChunk> nest);

// The bytes [first, end) of its buffer a view instance spans: its hull (a
// dense view spans exactly these); empty when it shows nothing.
struct ByteSpan {
  int64_t first = 0;
  int64_t end = 0;
};
ByteSpan span_view_bytes(const Plan& plan, const ViewInstance& view);

}  // namespace tinyfit::plan
