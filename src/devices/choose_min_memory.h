// choose-min-memory: tinyfit's memory-first partition, the comparison point
// for MemoriaNova's k1/k2 rule (not the latency search of issue 14, which is
// not built yet). Every operator the kernels can split runs split over all n
// devices (the devices' shares as even as the axis allows), by the split
// (cout, fmh or len) whose largest part holds the fewest bytes: its output
// part plus the input boxes it reads (part_boxes.h), with cout's weights
// share not counted (flash); ties go to fmh, then cout, then len. Greedy,
// one operator at a time: it does not see the transfers a change of split
// between neighbours costs. Operators no kernel splits run whole on the
// device with the most SRAM.
#pragma once

#include <vector>

#include "devices/device_plan.h"
#include "ir/graph.h"

namespace tinyfit::devices {

// Requires: `order` a topological order of every node of `graph`.
std::vector<OperatorChoice> choose_min_memory(const ir::Graph& graph, const std::vector<ir::NodeId>& order,
                                              const DeviceLimits& limits);

}  // namespace tinyfit::devices
