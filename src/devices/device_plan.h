// The multi-device plan (DESIGN.md "Several devices", issue 14, MemoriaNova
// §2.1): a network run by n microcontrollers, each with its own SRAM and
// flash, linked by a byte link. Every operator runs either whole on one
// device or split across several by one of MemoriaNova's methods:
//   - whole: one device computes the operator;
//   - cout (Split::kChannels): output channels split; each device reads the
//     whole input (what the op declaration's axis map says the channels read)
//     and holds its share of the weights;
//   - fmh (Split::kRows): feature-map rows split; each device reads its rows
//     plus the halo the op declaration's windows add (MemoriaNova eq. 1) and
//     holds all the weights;
//   - len (Split::kLength): element-wise operators split along their
//     outermost non-unit axis, so every part is one box (contiguous in the
//     tensor's row-major order for the common NHWC case).
// Between operators the plan moves the parts of tensors between devices as
// explicit transfers with their bytes: a scatter (a tensor on one device to
// several), a gather (parts to one device), a halo exchange (row parts to
// row parts: each device receives the rows of its neighbours its windows
// read), or a redistribution (any other change of split).
//
// The plan is a list of stages, one per operator in execution order and a
// last one that gathers the graph outputs on device 0 (the graph inputs start
// on device 0). A stage first runs its transfers (in list order), then every
// device computes its part. The program of device d is the projection of the
// stages onto d: its sends, receives and computes in stage order. Since every
// transfer is one send matched by one receive and all devices follow the same
// global order, blocking send/receive cannot deadlock.
//
// Memory of a device (MemoriaNova §2.2): each stage s has two steps,
// step 2s (the interval stage before the operator: the transfers) and step
// 2s + 1 (the execution stage: the operator). A device buffer is live from the
// step that first writes it to the last that reads it; graph inputs are live
// from step 0, graph outputs to the last step. Per device, the arena holds
// every buffer at its offset (placed like a single-device plan's buffers);
// flash counts the constants of the operators it computes (a cout part holds
// its channels' share of them, rounded up; fmh and whole parts hold them all).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/op_decl.h"

namespace tinyfit::devices {

using DeviceId = int;

// A box of a tensor: one half-open range per axis (the tensor's rank, at
// least 1; a box without axes is the empty box, "none").
struct Box {
  std::vector<ir::Range> axes;

  bool operator==(const Box&) const = default;
  bool is_empty() const;
  int64_t count_elements() const;
  ir::Shape extents() const;
  bool contains(const Box& other) const;  // every element of `other` is in this box
};
Box make_full_box(const ir::Shape& shape);
Box intersect_boxes(const Box& a, const Box& b);      // empty when they are disjoint
Box bound_boxes(const Box& a, const Box& b);          // smallest box holding both (an empty one is ignored)
std::string format_box(const Box& box);               // "[0,4)x[0,56)x[0,56)x[0,24)"

enum class Split { kWhole, kChannels, kRows, kLength };
std::string_view split_name(Split split);  // "whole", "cout", "fmh", "len" (MemoriaNova's names)

// How one operator runs: whole on devices[0], or split into devices.size()
// parts, part i on devices[i] (contiguous shares of the split axis, as even
// as the extent allows: split_extent).
struct OperatorChoice {
  ir::NodeId node = -1;
  Split split = Split::kWhole;
  std::vector<DeviceId> devices;
};

// Device limits: SRAM (activations) and flash (weights) per device; 0 flash
// means not limited. link_bytes_per_second: 0 when not given.
struct DeviceLimits {
  std::vector<int64_t> sram_bytes;
  std::vector<int64_t> flash_bytes;
  int64_t link_bytes_per_second = 0;

  int count_devices() const { return static_cast<int>(sram_bytes.size()); }
};

// A part of one tensor in one device's arena: the elements of `box`, dense
// and row-major over the box's extents.
struct DeviceBuffer {
  std::string name;          // "tensor@d1[rows 0..28)" style, for dumps
  ir::TensorId tensor = -1;  // the IR tensor it holds part of
  ir::DType dtype = ir::DType::kI8;
  Box box;
  int64_t bytes = 0;
  int first_step = 0;        // inclusive (steps: see the header comment)
  int last_step = 0;         // inclusive
  int64_t offset = -1;       // arena offset, -1 until placed
};

// One device computes the part `output_boxes` of a node's outputs (one box
// per node output: a split node has one output). Its inputs are read from
// input_buffers (one per node input; -1 for a constant or absent input),
// each showing input_boxes[i] inside the buffer's box (the rows or channels
// the op declaration's axis map says the part reads). An alias node (reshape)
// computes nothing: its output buffer is its input's.
struct PartCompute {
  ir::NodeId node = -1;
  DeviceId device = 0;
  std::vector<Box> output_boxes;
  std::vector<int> output_buffers;  // index into that device's buffers
  std::vector<Box> input_boxes;     // empty box for a constant input
  std::vector<int> input_buffers;
};

enum class ExchangeKind { kScatter, kGather, kHalo, kRedistribute, kLocalCopy };
std::string_view exchange_kind_name(ExchangeKind kind);

// `box` of `tensor` copied from a buffer of device `from` to one of device
// `to` (both buffers' boxes contain it). kLocalCopy (from == to) moves bytes
// inside one arena and is not link traffic.
struct Transfer {
  ExchangeKind kind = ExchangeKind::kRedistribute;
  DeviceId from = 0;
  DeviceId to = 0;
  ir::TensorId tensor = -1;
  Box box;
  int from_buffer = -1;
  int to_buffer = -1;
  int64_t bytes = 0;
};

struct Stage {
  ir::NodeId node = -1;  // -1: the final stage gathering the graph outputs
  Split split = Split::kWhole;
  std::vector<Transfer> transfers;   // step 2s, in this order
  std::vector<PartCompute> computes; // step 2s + 1, one per participating device
};

struct DeviceArena {
  std::vector<DeviceBuffer> buffers;
  int64_t arena_bytes = 0;  // after placement
  int64_t flash_bytes = 0;  // constants of the operators it computes
};

// Where a graph input or output lives: a whole-tensor buffer on `device`.
struct DeviceTensorHome {
  DeviceId device = 0;
  int buffer = -1;
};

struct DevicePlan {
  std::vector<DeviceArena> devices;
  std::vector<Stage> stages;
  std::vector<OperatorChoice> choices;  // one per computed node, in stage order
  std::vector<DeviceTensorHome> inputs;   // per graph input
  std::vector<DeviceTensorHome> outputs;  // per graph output

  int count_devices() const { return static_cast<int>(devices.size()); }
  int count_steps() const { return 2 * static_cast<int>(stages.size()); }
  int64_t count_link_bytes() const;  // bytes over the links (every transfer but local copies)
};

// Contiguous share `part` of `parts` of [0, extent): [extent*part/parts,
// extent*(part+1)/parts). Shares differ by at most one element.
ir::Range split_extent(int64_t extent, int part, int parts);

}  // namespace tinyfit::devices
