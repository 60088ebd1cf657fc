// What one device of a multi-device model runs, as the C emitter takes it
// (issue 14 §5): an ordered list of steps over the device's arena. Plain
// records, so that any multi-device planner hands its result over (the
// driver converts src/devices' plans). A step is one of
//  - a top-level step of one of the device's plan::Plans (the single-device
//    form; --partition rows' device 0 runs its band's plan, then the tail's);
//  - a part call: one runtime kernel on views fixed at compile time (a part
//    of an operator: its rows, its channels, its box; the views' origins
//    tell the window kernels which part);
//  - a link transfer: a view's bytes sent to or received from another device;
//  - a local copy: a view's bytes copied to another view of the same arena.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "exec/kernel_call.h"
#include "ir/dtype.h"
#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::codegen {

// Elements of the arena fixed at compile time: element (0, ..., 0) at
// `offset_bytes`, extents, strides in elements, and the index of that
// element in the whole tensor along each axis (rank <= 4).
struct StaticView {
  int64_t offset_bytes = 0;
  ir::DType dtype = ir::DType::kI8;
  ir::Shape shape;
  ir::Shape strides;
  ir::Shape origin;

  int64_t count_bytes() const;
};

// A view without sweeps of a placed plan's buffer, origin 0.
StaticView make_static_view(const plan::Plan& plan, const plan::View& view);

// The top-level step steps[index] of one of the device's plans: plan 0 is
// the one the emitter was given, plan k >= 1 EmitOptions::more_plans[k - 1]
// (a device that runs several plans one after another in its one arena).
struct PlanStepRef {
  int index = 0;
  int plan = 0;
};

// A plan a device runs, with the graph its node ids, weights and model
// inputs / outputs refer to.
struct GraphPlan {
  const ir::Graph* graph = nullptr;
  const plan::Plan* plan = nullptr;
};

struct PartCall {
  ir::NodeId node = -1;                               // the operator it computes part of
  std::shared_ptr<const exec::PreparedKernel> kernel; // prepared by the planner's glue for this part's form
  std::vector<StaticView> inputs;                     // exec::KernelViews order
  std::vector<StaticView> outputs;
  ir::Range chunk;                                    // exec::KernelViews::chunk; {0, 0} outside channel chunks
  std::string label;                                  // which part, for the comment ("channels [0, 8)")
};

enum class LinkDirection { kSend, kReceive };

struct LinkTransfer {
  LinkDirection direction = LinkDirection::kSend;
  int peer = 0;        // the other device
  StaticView view;     // what leaves or lands
  std::string label;   // what it is, for the comment ("'conv2_y' rows [4, 8)")
};

struct LocalCopy {
  StaticView from;     // same extents as `to`
  StaticView to;
  std::string label;
};

using DeviceStep = std::variant<PlanStepRef, PartCall, LinkTransfer, LocalCopy>;

}  // namespace tinyfit::codegen
