// Live memory of one operator order, step by step.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/buffer_graph.h"

namespace tinyfit::analysis {

// An execution order: operator indices of a BufferGraph, each exactly once.
using Order = std::vector<int>;

struct Lifetime {
  int first_step = 0;  // inclusive
  int last_step = 0;   // inclusive
};

struct StepMemory {
  // While the operator of this step runs (MemoriaNova §2.2, execution stage):
  // every buffer live at this step, plus the operator's workspace.
  int64_t execution_bytes = 0;
  // After it finishes, before the next starts (interval stage): buffers that
  // live on past this step.
  int64_t interval_bytes = 0;
};

struct MemoryProfile {
  std::vector<Lifetime> lifetimes;  // per buffer
  std::vector<StepMemory> steps;    // per step of the order
  int64_t peak_bytes = 0;           // max execution_bytes
  int peak_step = 0;                // first step reaching the peak
};

// Requires: `order` is a topological order of the BufferGraph's operators.
// Guarantees: peak_bytes is the DESIGN.md peak of that order. O(buffers + steps).
MemoryProfile compute_memory_profile(const BufferGraph& bg, const Order& order);

// The given order: 0, 1, ..., n-1.
Order given_order(const BufferGraph& bg);

// True when every operator appears once and after the producers of its inputs.
bool is_topological_order(const BufferGraph& bg, const Order& order);

// Buffers live at `step` (for bottleneck reports), largest first, ties by index.
std::vector<int> live_buffers_at(const MemoryProfile& profile, const BufferGraph& bg, int step);

}  // namespace tinyfit::analysis
