#include "plan/lower_pex.h"

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/inplace.h"
#include "partition/pex_graph.h"
#include "partition/pex_schedule.h"
#include "plan/build_plan.h"
#include "plan/lower_pex_schedule.h"
#include "plan/plan_memory.h"
#include "schedule/order_best.h"

namespace tinyfit::plan {
namespace {

// Tiles per loop (PEX Remark 4): each loop in turn, the largest tile whose
// plan peak stays <= target, by binary search (the peak only grows with a
// tile: partial buffers are the only ones that scale). Greedy in plan order:
// an early loop may take the room a later one could have used.
std::vector<int64_t> choose_tiles(const std::vector<int64_t>& extents, int64_t target,
                                  const std::function<int64_t(const std::vector<int64_t>&)>& peak_of) {
  std::vector<int64_t> tiles(extents.size(), 1);
  for (size_t i = 0; i < extents.size(); ++i) {
    int64_t low = 1, high = extents[i];  // low fits
    while (low < high) {
      const int64_t mid = low + (high - low + 1) / 2;
      tiles[i] = mid;
      if (peak_of(tiles) <= target) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    tiles[i] = low;
  }
  return tiles;
}

// The best plain operator order's plan (with in-place merges when asked):
// what partial execution must beat.
Plan build_ordinary_plan(const ir::Graph& graph, const analysis::BufferGraph& bg, const PexOptions& options,
                         std::string& note) {
  schedule::OrderOptions order_options;
  order_options.deadline = options.deadline;
  const schedule::OrderResult ordered = schedule::order_best(bg, order_options);
  note = ordered.note;
  if (!options.inplace) return build_operator_plan(graph, bg, ordered.order);
  const analysis::InplaceResult merged = analysis::apply_inplace(graph, bg, ordered.order);
  Plan plan = build_operator_plan(graph, merged.graph, ordered.order);
  plan.techniques.push_back("inplace");
  return plan;
}

}  // namespace

Result<PexResult> build_pex_plan(const ir::Graph& graph, const PexOptions& options) {
  TINYFIT_CHECK(options.accumulator_bits == 8 || options.accumulator_bits == 16 || options.accumulator_bits == 32)
      << "pex: accumulator_bits " << options.accumulator_bits << " (the caller validates 8, 16 or 32)";
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const partition::PexGraph pg = partition::build_pex_graph(graph, bg, options.accumulator_bits);

  partition::PexScheduleOptions schedule_options;
  schedule_options.deadline = options.deadline;
  schedule_options.progress = options.progress;
  const partition::PexSchedule schedule = partition::schedule_pex(pg, schedule_options);

  std::vector<int64_t> extents;
  for (const partition::PexInstruction& i : schedule.instructions) {
    if (i.is_loop) extents.push_back(i.loop.extent);
  }
  auto lower = [&](const std::vector<int64_t>& tiles) {
    return lower_pex_schedule(graph, bg, pg, schedule, tiles, options.accumulator_bits);
  };
  auto peak_of = [&](const std::vector<int64_t>& tiles) { return compute_plan_memory(lower(tiles)).peak_bytes; };
  const int64_t unit_peak = peak_of(std::vector<int64_t>(extents.size(), 1));

  std::string order_note;
  Plan ordinary = build_ordinary_plan(graph, bg, options, order_note);
  const int64_t ordinary_peak = compute_plan_memory(ordinary).peak_bytes;

  PexResult result;
  result.optimal = schedule.optimal;
  if (extents.empty() || ordinary_peak <= unit_peak) {
    // No loop lowers the peak: ordinary execution, as PEX prefers (§3.3).
    result.plan = std::move(ordinary);
    result.plan.techniques.push_back("pex");
    result.note = "pex: no partial-execution loop lowers the peak below the best operator order (" +
                  std::to_string(ordinary_peak) + " bytes; " + order_note + "); scheduler " + schedule.note;
    return result;
  }
  // Without a budget, loops may grow as long as the peak stays the smallest.
  const int64_t target = options.sram_bytes > 0 ? std::max(options.sram_bytes, unit_peak) : unit_peak;
  const std::vector<int64_t> tiles = choose_tiles(extents, target, peak_of);
  result.plan = lower(tiles);
  if (options.inplace) {
    result.note = "in-place merges not applied inside the pex plan; ";
  }
  result.loops = static_cast<int>(extents.size());
  result.note += "pex: " + std::to_string(result.loops) + " loops, peak " + std::to_string(unit_peak) +
                 " bytes at tile 1 (best operator order: " + std::to_string(ordinary_peak) + "); scheduler " +
                 schedule.note;
  return result;
}

}  // namespace tinyfit::plan
