// `tinyfit analyze`: the memory picture of one execution strategy (an order,
// optionally in-place) with its arena placement. Plain data; tools/ prints it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/deadline.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct AnalyzeOptions {
  std::string order = "given";      // given | rpo | exact | hierarchical | best
  bool inplace = false;             // TinyEngine-style in-place execution
  std::string placement = "best";   // a placement algorithm name, or best
  Deadline deadline;                // --time-limit for the searches
  std::function<void(double)> progress;  // fraction done of long searches
};

struct LiveTensor {
  std::string name;
  int64_t bytes = 0;
};

struct Bottleneck {
  int step = 0;
  std::string node;   // IR node name
  std::string op;     // its operator type
  std::vector<LiveTensor> tensors;  // live at that step, largest first
};

struct StepReport {
  std::string node;
  std::string op;
  int64_t execution_bytes = 0;  // while it runs
  int64_t interval_bytes = 0;   // after it, before the next step
};

struct MemoryReport {
  std::string model;
  int64_t peak_bytes = 0;
  int64_t arena_bytes = 0;
  int64_t flash_bytes = 0;
  int64_t macs = 0;
  int64_t lower_bound_bytes = 0;   // no order can go below this
  int64_t input_bytes = 0;         // before the first step (interval stage 0)
  std::vector<std::string> techniques;
  std::string order;               // the ordering that produced it
  bool order_optimal = false;      // proven minimum for the ordering problem
  std::string order_note;          // why not optimal (time limit, fallback)
  std::string placement;           // the placement algorithm that won
  bool placement_optimal = false;  // arena_bytes proven minimal for this order
  std::string placement_note;      // why not proven, or how
  Bottleneck bottleneck;
  std::vector<StepReport> steps;
  std::vector<std::string> schedule;  // input-model node names, each once
  bool verified = false;           // only an execution check sets it
};

Result<MemoryReport> analyze_memory(const ir::Graph& graph, const AnalyzeOptions& options);

}  // namespace tinyfit::driver
