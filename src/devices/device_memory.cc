#include "devices/device_memory.h"

#include "plan/place_greedy_by_conflicts.h"
#include "plan/place_greedy_by_size.h"

namespace tinyfit::devices {

std::vector<DeviceMemory> compute_device_memory(const DevicePlan& plan) {
  std::vector<DeviceMemory> result;
  const int steps = plan.count_steps();
  for (const DeviceArena& device : plan.devices) {
    DeviceMemory memory;
    memory.step_bytes.assign(static_cast<size_t>(steps), 0);
    for (const DeviceBuffer& b : device.buffers) {
      for (int s = b.first_step; s <= b.last_step; ++s) memory.step_bytes[static_cast<size_t>(s)] += b.bytes;
    }
    for (int s = 0; s < steps; ++s) {
      if (memory.step_bytes[static_cast<size_t>(s)] > memory.peak_bytes) {
        memory.peak_bytes = memory.step_bytes[static_cast<size_t>(s)];
        memory.peak_step = s;
      }
    }
    result.push_back(std::move(memory));
  }
  return result;
}

void place_device_buffers(DevicePlan& plan) {
  for (DeviceArena& device : plan.devices) {
    std::vector<plan::PlacementBuffer> records;
    for (size_t i = 0; i < device.buffers.size(); ++i) {
      const DeviceBuffer& b = device.buffers[i];
      records.push_back({static_cast<int>(i), b.bytes, 4, b.first_step, b.last_step});
    }
    plan::PlacementOptions options;
    plan::Placement best = plan::place_greedy_by_size(records, options);
    plan::Placement other = plan::place_greedy_by_conflicts(records, options);
    if (other.arena_bytes < best.arena_bytes) best = std::move(other);
    for (size_t i = 0; i < device.buffers.size(); ++i) device.buffers[i].offset = best.offsets[i];
    device.arena_bytes = best.arena_bytes;
  }
}

}  // namespace tinyfit::devices
