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

// The plan of a plain operator order (with its in-place merges, if it has
// any): what partial execution must beat.
Plan build_ordinary_plan(const ir::Graph& graph, const analysis::BufferGraph& bg,
                         const schedule::OrderResult& ordered) {
  if (ordered.inplace_choices.empty()) return build_operator_plan(graph, bg, ordered.order);
  const analysis::InplaceResult merged = analysis::apply_inplace_choices(bg, ordered.order, ordered.inplace_choices);
  Plan plan = build_operator_plan(graph, merged.graph, ordered.order);
  plan.techniques.push_back("inplace");
  return plan;
}

// In-place merges (analysis/inplace.h) for the whole operators of a pex
// schedule: apply_inplace over the schedule's operator order, with every
// buffer a loop reads marked as a model output so that no merge overwrites a
// loop's input (loops' own operators never merge). apply_inplace judges
// merges by the plain order's profile, which does not see loops, so the
// caller keeps them only if the plan's peak does not rise. Model-output flags
// are restored from the graph afterwards.
analysis::BufferGraph merge_whole_ops_in_place(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                               const partition::PexSchedule& schedule, int& merges) {
  analysis::BufferGraph masked = bg;
  analysis::Order order;
  for (const partition::PexInstruction& i : schedule.instructions) {
    if (!i.is_loop) {
      order.push_back(i.op);
      continue;
    }
    for (int op : i.loop.ops) {
      order.push_back(op);
      for (int b : bg.operators[static_cast<size_t>(op)].inputs) masked.buffers[static_cast<size_t>(b)].is_model_output = true;
    }
  }
  analysis::InplaceResult merged = analysis::apply_inplace(masked, order);
  merges = static_cast<int>(merged.merges.size());
  for (analysis::Buffer& b : merged.graph.buffers) b.is_model_output = false;
  for (ir::TensorId t : graph.outputs) {
    const int b = merged.graph.buffer_of_tensor.at(static_cast<size_t>(t));
    if (b >= 0) merged.graph.buffers[static_cast<size_t>(b)].is_model_output = true;
  }
  return std::move(merged.graph);
}

// Whether `candidate` places in an arena no larger than `plan` by
// greedy-by-size or, failing that, by hill-climb (part of the placement
// tinyfit compile runs by default, and slower, so only then).
// MobileNetV2-96-w0.35's aligned tiles (chunks of 8 of 48 channels instead of
// 9) place in 73,728 bytes against 66,872 by greedy-by-size, and in 66,816
// either way by hill-climb.
bool places_no_larger(const Plan& candidate, const Plan& plan) {
  for (const char* algorithm : {"greedy-by-size", "hill-climb"}) {
    Plan placed = plan, candidate_placed = candidate;
    if (place_plan(placed, algorithm, {}) && place_plan(candidate_placed, algorithm, {}) &&
        candidate_placed.arena_bytes <= placed.arena_bytes) {
      return true;
    }
  }
  return false;
}

}  // namespace

int64_t align_pex_tile(int64_t tile, int64_t extent) {
  const int64_t iterations = (extent + tile - 1) / tile;
  const int64_t smallest = (extent + iterations - 1) / iterations;
  const int64_t aligned = (smallest + 3) / 4 * 4;
  return aligned <= tile ? aligned : tile;
}

Result<PexResult> build_pex_plan(const ir::Graph& graph, const PexOptions& options) {
  TINYFIT_CHECK(options.accumulator_bits == 8 || options.accumulator_bits == 16 || options.accumulator_bits == 32)
      << "pex: accumulator_bits " << options.accumulator_bits << " (the caller validates 8, 16 or 32)";
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const partition::PexGraph pg = partition::build_pex_graph(graph, bg, options.accumulator_bits);

  schedule::OrderOptions order_options;
  order_options.deadline = options.deadline;
  const schedule::OrderResult ordered = schedule::order_best(bg, order_options);

  partition::PexScheduleOptions schedule_options;
  schedule_options.deadline = options.deadline;
  schedule_options.progress = options.progress;
  schedule_options.bound_order = ordered.order;
  const partition::PexSchedule schedule = partition::schedule_pex(pg, schedule_options);

  std::vector<int64_t> extents;
  for (const partition::PexInstruction& i : schedule.instructions) {
    if (i.is_loop) extents.push_back(i.loop.extent);
  }
  const std::vector<int64_t> unit_tiles(extents.size(), 1);
  // The graph the plan is lowered from: bg, or bg with whole operators merged in place.
  const analysis::BufferGraph* lowered_bg = &bg;
  const partition::PexGraph* lowered_pg = &pg;
  auto lower = [&](const std::vector<int64_t>& tiles) {
    return lower_pex_schedule(graph, *lowered_bg, *lowered_pg, schedule, tiles, options.accumulator_bits);
  };
  auto peak_of = [&](const std::vector<int64_t>& tiles) { return compute_plan_memory(lower(tiles)).peak_bytes; };
  int64_t unit_peak = peak_of(unit_tiles);
  int merges = 0;
  analysis::BufferGraph merged_bg;
  partition::PexGraph merged_pg;
  if (options.inplace) {
    merged_bg = merge_whole_ops_in_place(graph, bg, schedule, merges);
    merged_pg = partition::build_pex_graph(graph, merged_bg, options.accumulator_bits);
    lowered_bg = &merged_bg;
    lowered_pg = &merged_pg;
    const int64_t merged_peak = peak_of(unit_tiles);
    if (merges > 0 && merged_peak <= unit_peak) {
      unit_peak = merged_peak;
    } else {
      merges = 0;
      lowered_bg = &bg;
      lowered_pg = &pg;
    }
  }

  // In-place merges depend on where inputs die, so in place the order that
  // partial execution must beat is searched with its merges.
  schedule::OrderResult ordered_in_place;
  if (options.inplace) {
    schedule::OrderOptions inplace_options = order_options;
    inplace_options.inplace = true;
    ordered_in_place = schedule::order_best(bg, inplace_options);
  }
  const schedule::OrderResult& fallback = options.inplace ? ordered_in_place : ordered;
  const std::string order_note = fallback.note;
  Plan ordinary = build_ordinary_plan(graph, bg, fallback);
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
  // Aligned tiles (align_pex_tile) when they place in no larger an arena: their
  // peak is no higher, but the placement of the other sizes can be worse.
  std::vector<int64_t> aligned = tiles;
  for (size_t i = 0; i < tiles.size(); ++i) aligned[i] = align_pex_tile(tiles[i], extents[i]);
  if (aligned != tiles) {
    Plan aligned_plan = lower(aligned);
    if (places_no_larger(aligned_plan, result.plan)) result.plan = std::move(aligned_plan);
  }
  if (merges > 0) {
    result.plan.techniques.push_back("inplace");
    result.note = std::to_string(merges) + " whole operators in place; ";
  }
  result.loops = static_cast<int>(extents.size());
  // The scheduler's "optimal" covers its own model, which has no in-place:
  // with merges added after it, the plan built is not proven optimal.
  result.note += "pex: " + std::to_string(result.loops) + " loops, peak " + std::to_string(unit_peak) +
                 " bytes at tile 1 (best operator order: " + std::to_string(ordinary_peak) + "); scheduler" +
                 (merges > 0 ? " (searched without in-place, merges added after) " : " ") + schedule.note;
  return result;
}

}  // namespace tinyfit::plan
