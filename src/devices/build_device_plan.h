// build-device-plan: lowers one operator choice per node (device_plan.h
// OperatorChoice) to a DevicePlan: the buffers each device holds, the
// transfers between them, and every device's part of every operator.
//
// Which device holds what: the device computing a part of a tensor holds that
// part; a device whose parts of consumers read a box of a tensor (the union
// of what they read, part_boxes.h) receives the rest of that box from the
// devices computing it, once, in the stage of its first consumer there. When
// the box it reads and the part it computed sit in one box no larger than the
// two apart, one buffer holds both (fmh: a device's rows and its halo);
// otherwise the device also copies its own part into the box it reads
// (kLocalCopy). Graph inputs start whole on device 0; graph outputs end whole
// on device 0. A whole operator reads its whole inputs (whole kernels take
// whole views: a Slice applies its begin to its input view). A reshape-like operator (an alias on one device) is a copy of
// its input's bytes here.
//
// Not built yet: kernel workspaces (every part runs its workspace-free
// primitive). Parts composed with the single-device techniques are
// devices/crop_rows.h's band graphs, not this plan's parts.
#pragma once

#include <vector>

#include "devices/device_plan.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::devices {

// Requires: `choices` name every node of `graph` once, in a topological
// order; every device id in [0, device_count); kWhole choices name one device,
// others at least two distinct ones, and serves_split holds for them.
// Guarantees: every tensor part a device reads is written (computed or
// received) on it before; buffers unplaced (offset -1); flash per device
// counted.
Result<DevicePlan> build_device_plan(const ir::Graph& graph, const std::vector<OperatorChoice>& choices,
                                     int device_count);

}  // namespace tinyfit::devices
