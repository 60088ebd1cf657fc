// From the analysis view of one execution (a BufferGraph, an order and its
// memory profile) to the plain records the placement algorithms eat.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "plan/placement.h"

namespace tinyfit::plan {

// Cortex-M kernels load int32 words; CMSIS-NN wants 4-byte aligned buffers.
// Larger alignment costs padding that shows up as fragmentation.
inline constexpr int64_t kDefaultAlignmentBytes = 4;

// One record per buffer of `bg` (id = buffer index, lifetime from `profile`),
// then one per operator with workspace_bytes > 0 (id = bg.buffers.size() +
// its step, lifetime that single step): the peak counts workspaces, so the
// arena must hold them too. In-place reuse needs no declared overlap here:
// analysis/inplace merges the two tensors into one buffer before this.
// Requires: `profile` = compute_memory_profile(bg, order).
// Guarantees: compute_live_peak_bytes(result) == profile.peak_bytes.
std::vector<PlacementBuffer> build_placement_buffers(const analysis::BufferGraph& bg,
                                                     const analysis::MemoryProfile& profile,
                                                     const analysis::Order& order,
                                                     int64_t alignment = kDefaultAlignmentBytes);

// The id build_placement_buffers gives the workspace of the operator at `step`.
inline int workspace_buffer_id(const analysis::BufferGraph& bg, int step) {
  return static_cast<int>(bg.buffers.size()) + step;
}

// arena_bytes / peak_bytes (1.0 = no fragmentation); 1.0 for an empty model.
double compute_fragmentation(int64_t arena_bytes, int64_t peak_bytes);

}  // namespace tinyfit::plan
