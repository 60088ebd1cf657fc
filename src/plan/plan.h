// The Plan: the one contract between tinyfit's optimisers and its executors
// (DESIGN.md, "The plan is the one contract"). A plan is a list of steps over
// named buffers; a step is either one kernel call on views of buffers, or a
// loop that repeats a body of kernel calls over the chunks of one axis (PEX's
// partial-execution loops; later MOTES partitions and patches). Loops are
// never unrolled: a loop over 96 channels is one Loop, not 96 calls.
//
// Every optimiser lowers to a Plan; placement (place_plan.h) gives each buffer
// an arena offset; verify_plan checks it; the plan executor (exec/) and the C
// emitter (codegen/) consume the same Plan. A Plan refers to the ir::Graph it
// was lowered from by node id, for operator attributes and constant weights;
// the two travel together.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/graph.h"
#include "ir/op_decl.h"

namespace tinyfit::plan {

using BufferId = int;

enum class BufferRole {
  kModelInput,   // written by the caller before the run
  kModelOutput,  // read by the caller after the run
  kActivation,   // an intermediate tensor, whole
  kPartial,      // a chunk of a tensor inside a loop (PEX t^P): holds `tile` channels
  kAccumulator,  // partial sums of an A-type operator run by input-channel chunks
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

// Elements of a buffer seen as a tensor: offset + shape + strides (elements).
// Views have the rank of the IR tensor they show (NHWC for rank 4; channels are
// the last axis). A view inside a loop may follow the loop's chunk on one axis:
// at iteration i the axis covers [i*tile, min((i+1)*tile, loop extent)) of the
// tensor, its extent is that chunk's size, and the view's start advances by
// i*tile*chunk_stride elements. chunk_stride is strides[chunk_axis] for a slice
// of a whole tensor (PEX Slice / Post-concatenate read or write a full buffer
// in place), and 0 for a partial buffer that holds only the current chunk (its
// strides are those of a tile-channel tensor; the last, shorter chunk keeps
// them).
struct View {
  BufferId buffer = -1;
  int64_t offset_elements = 0;  // start at iteration 0
  ir::Shape shape;              // extents; on the chunk axis, the tile
  ir::Shape strides;            // elements per step along each axis
  int chunk_axis = -1;          // -1: the view is the same in every iteration
  int64_t chunk_stride = 0;     // elements the start advances per chunk element

  int rank() const { return static_cast<int>(shape.size()); }
};

// How a call computes its node (PEX §3.1 execution rules; the Full/Partial
// continue rules are kWhole and kChunk of a C-type node).
enum class CallMode {
  kWhole,        // the whole node: every input and output view complete
  kChunk,        // the loop's chunk of output channels. C-type: from the same chunk
                 // of input channels (Partial continue); A-type: from whole inputs
                 // (Generate)
  kAccumulate,   // A-type: adds the contribution of the loop's chunk of input
                 // channels to an accumulator view (Accumulate); the first
                 // iteration starts from zero
  kFinalize,     // A-type after its Accumulate loop: bias, requantisation and
                 // activation from the accumulator into the output
  kCopy,         // no node: copies the input view into the output view (same
                 // shape), to materialise a chunk (Slice / Post-concatenate when
                 // a producer cannot write in place)
};
std::string_view call_mode_name(CallMode mode);

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
};

// Repeats `body` ceil(extent / tile) times; see View for how chunked views move.
struct Loop {
  std::string name;       // for dumps ("pex-loop-3")
  int64_t extent = 0;     // elements of the chunked axis (channels)
  int64_t tile = 1;       // K: elements per iteration, 1 <= tile <= extent
  std::vector<KernelCall> body;
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
  std::vector<std::string> techniques;  // what produced it ("order:exact", "inplace", "pex")
  int64_t arena_bytes = 0;        // set by placement; 0 before

  int64_t count_calls() const;    // kernel calls per inference (loop bodies once per iteration)
};

// A view of a whole buffer holding a tensor of `shape` (row-major, dense).
View make_dense_view(BufferId buffer, const ir::Shape& shape);

// Iterations of a loop: ceil(extent / tile).
int64_t count_iterations(const Loop& loop);

// The chunk [begin, end) of iteration `i` of a loop.
ir::Range chunk_of_iteration(const Loop& loop, int64_t i);

// The view as seen in one iteration with chunk `chunk` (identity for views
// without a chunk axis): start advanced, chunk-axis extent = chunk size.
View resolve_view(const View& view, ir::Range chunk);

}  // namespace tinyfit::plan
