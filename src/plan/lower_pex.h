// Partial execution (PEX, Liberis & Lane; ../shared/papers/pex-partial-execution.txt):
// the scheduler's instruction list lowered to a Plan with channel loops.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ir/graph.h"
#include "plan/plan.h"
#include "support/deadline.h"
#include "support/diag.h"

namespace tinyfit::plan {

struct PexOptions {
  // 0: no budget, every loop takes the tile that gives the smallest peak.
  // Otherwise the largest tile per loop whose plan still fits (PEX Remark 4:
  // fewer, larger iterations cost less time), found by binary search.
  int64_t sram_bytes = 0;
  // Accumulate-rule buffers: 32 (exact, the default), 16 or 8 (PEX §3.4, not exact).
  int accumulator_bits = 32;
  bool inplace = false;  // compose with in-place execution (analysis/inplace.h)
  Deadline deadline;     // --time-limit for the scheduler's search
  std::function<void(double)> progress;  // fraction done, for a terminal
};

struct PexResult {
  Plan plan;            // not yet placed
  int loops = 0;        // partial-execution loops in the plan
  bool optimal = true;  // the scheduler's search finished (not cut by the deadline)
  std::string note;     // what the search did / why it stopped early
};

// What: the minimum-peak partial-execution schedule of `graph` (PEX §3.2-3.3,
// Appendix A; partition/pex_schedule.h), lowered to a Plan with one Loop step
// per loop (plan/lower_pex_schedule.h), tiles chosen per loop as PexOptions
// says. With `inplace`, whole operators outside loops also merge in place
// when that does not raise the peak. If no loop beats the best plain operator
// order (schedule/order_best.h; in place: searched with its in-place merges,
// OrderOptions::inplace), that order's plan is returned with loops = 0.
// techniques includes "pex".
// Requires: graph passed verify_graph; accumulator_bits is 8, 16 or 32 (the
// caller validates it).
// Guarantees: verify_plan(graph, result.plan) holds; MACs of the plan equal the
// graph's (no recomputation); its peak is <= the best operator order's.
Result<PexResult> build_pex_plan(const ir::Graph& graph, const PexOptions& options);

// The tile with the same iterations over `extent` channels as `tile` that is
// a multiple of four, if one is no larger; else `tile`. Every chunk then
// starts on a group of four channels, which the __dsp kernels run four at a
// time (a depthwise chunk of 9 starting at channel 9 ran 5 of its channels one
// by one); the calls are the same and a smaller tile never raises the peak.
// build_pex_plan aligns its tiles so when the plan's arena does not grow,
// placed by greedy-by-size or else by hill-climb (the other buffer sizes can
// place worse: MobileNetV2-96-w0.35 66,872 -> 73,728 bytes by greedy-by-size,
// 66,816 either way by hill-climb). Requires: 1 <= tile <= extent.
int64_t align_pex_tile(int64_t tile, int64_t extent);

}  // namespace tinyfit::plan
