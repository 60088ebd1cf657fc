// Per-device memory of a DevicePlan (MemoriaNova §2.2): the live bytes of
// every device at every step, where step 2s is the interval stage before
// stage s's operator (its transfers) and step 2s + 1 its execution stage; and
// the arena of each device, placed as a single-device plan's buffers are
// (plan/placement.h), so every device's arena_bytes >= its peak.
#pragma once

#include <cstdint>
#include <vector>

#include "devices/device_plan.h"

namespace tinyfit::devices {

struct DeviceMemory {
  std::vector<int64_t> step_bytes;  // one per step of the plan
  int64_t peak_bytes = 0;
  int peak_step = 0;

  int64_t interval_stage_bytes(int stage) const { return step_bytes.at(static_cast<size_t>(2 * stage)); }
  int64_t execution_stage_bytes(int stage) const { return step_bytes.at(static_cast<size_t>(2 * stage + 1)); }
};

// One per device.
std::vector<DeviceMemory> compute_device_memory(const DevicePlan& plan);

// Gives every device buffer an offset (4-byte aligned, greedy by size, then
// by conflicts, the smaller arena kept) and sets each device's arena_bytes.
void place_device_buffers(DevicePlan& plan);

}  // namespace tinyfit::devices
