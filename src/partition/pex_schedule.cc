#include "partition/pex_schedule.h"

#include <algorithm>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "partition/pex_order_schedule.h"
#include "support/diag.h"

namespace tinyfit::partition {
namespace {

struct Transition {
  int64_t peak_bytes = 0;
  PexInstruction instruction;
  OpSet next;
};

bool is_ready(const PexGraph& pg, const OpSet& done, int op) {
  for (const PexRead& r : pg.operators[static_cast<size_t>(op)].inputs) {
    const int producer = pg.buffers[static_cast<size_t>(r.buffer)].producer;
    if (producer >= 0 && !done.has(producer)) return false;
  }
  return true;
}

// Every instruction that may run after `done`.
std::vector<Transition> list_transitions(const PexGraph& pg, const OpSet& done, const PexScheduleOptions& options,
                                         bool& truncated) {
  std::vector<Transition> out;
  for (size_t v = 0; v < pg.operators.size(); ++v) {
    const int op = static_cast<int>(v);
    if (done.has(op) || !is_ready(pg, done, op)) continue;
    Transition t;
    t.peak_bytes = compute_whole_op_peak(pg, done, op);
    t.instruction.op = op;
    t.instruction.peak_bytes = t.peak_bytes;
    t.next = done;
    t.next.add(op);
    out.push_back(std::move(t));
  }
  if (!options.allow_loops) return out;
  LoopSearchResult loops = enumerate_loops(pg, done, options.loop_limits, options.deadline);
  truncated = truncated || loops.truncated;
  for (PexLoop& loop : loops.loops) {
    Transition t;
    t.peak_bytes = compute_loop_peak(pg, done, loop);
    t.next = done;
    for (int op : loop.ops) t.next.add(op);
    t.instruction.is_loop = true;
    t.instruction.loop = std::move(loop);
    t.instruction.peak_bytes = t.peak_bytes;
    out.push_back(std::move(t));
  }
  return out;
}

// Best-first search over operator sets with keys that only grow along a path
// (max of peaks, or sums of counts): Dijkstra's argument makes the first
// complete state popped the best.
template <typename Key>
class BestFirst {
 public:
  struct Visit {
    OpSet set;
    Key key;
    int parent = -1;
    PexInstruction via;
    bool closed = false;
  };

  // `extend(key, transition)` gives the successor's key, or nullopt-like false
  // through `admit` to skip the transition.
  template <typename Extend, typename Admit>
  bool run(const PexGraph& pg, const PexScheduleOptions& options, Extend extend, Admit admit, double progress_from,
           double progress_to, bool& truncated) {
    const int n = static_cast<int>(pg.operators.size());
    add(OpSet(pg.operators.size()), Key{}, -1, {});
    int deepest = 0;
    while (!queue_.empty()) {
      const auto [key, negative_depth, id] = queue_.top();
      queue_.pop();
      if (visits_[static_cast<size_t>(id)].closed || key != visits_[static_cast<size_t>(id)].key) continue;
      visits_[static_cast<size_t>(id)].closed = true;
      ++expanded_;
      const int depth = -negative_depth;
      if (depth > deepest) {
        deepest = depth;
        if (options.progress && n > 0) {
          options.progress(progress_from + (progress_to - progress_from) * depth / n);
        }
      }
      if (depth == n) {
        goal_ = id;
        return true;
      }
      if (options.deadline.expired() || expanded_ >= options.max_states) {
        truncated = true;
        return false;
      }
      const OpSet set = visits_[static_cast<size_t>(id)].set;
      for (Transition& t : list_transitions(pg, set, options, truncated)) {
        if (!admit(t)) continue;
        const Key next_key = extend(key, t);
        auto found = index_.find(t.next);
        if (found == index_.end()) {
          add(std::move(t.next), next_key, id, std::move(t.instruction));
          continue;
        }
        Visit& v = visits_[static_cast<size_t>(found->second)];
        if (!v.closed && next_key < v.key) {
          v.key = next_key;
          v.parent = id;
          v.via = std::move(t.instruction);
          queue_.push({next_key, -v.set.count(), found->second});
        }
      }
    }
    return false;  // unreachable for a DAG: whole operators always complete it
  }

  // Instructions from the start to `id`.
  std::vector<PexInstruction> path_to(int id) const {
    std::vector<PexInstruction> path;
    for (int v = id; visits_[static_cast<size_t>(v)].parent >= 0; v = visits_[static_cast<size_t>(v)].parent) {
      path.push_back(visits_[static_cast<size_t>(v)].via);
    }
    std::reverse(path.begin(), path.end());
    return path;
  }

  int goal() const { return goal_; }
  const Visit& visit(int id) const { return visits_[static_cast<size_t>(id)]; }
  int64_t expanded() const { return expanded_; }

 private:
  void add(OpSet set, Key key, int parent, PexInstruction via) {
    const int id = static_cast<int>(visits_.size());
    const int depth = set.count();
    index_.emplace(set, id);
    visits_.push_back({std::move(set), key, parent, std::move(via), false});
    queue_.push({key, -depth, id});
  }

  std::vector<Visit> visits_;
  std::unordered_map<OpSet, int, OpSetHash> index_;
  using Entry = std::tuple<Key, int, int>;  // key, -depth (deeper first), visit
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue_;
  int goal_ = -1;
  int64_t expanded_ = 0;
};

int64_t max_peak(const std::vector<PexInstruction>& instructions) {
  int64_t peak = 0;
  for (const PexInstruction& i : instructions) peak = std::max(peak, i.peak_bytes);
  return peak;
}

}  // namespace

PexSchedule schedule_pex(const PexGraph& pg, const PexScheduleOptions& options) {
  PexSchedule schedule;
  bool truncated = false;

  // The bound: one order, loops over its runs of operators.
  analysis::Order order = options.bound_order;
  if (order.empty()) {
    for (size_t v = 0; v < pg.operators.size(); ++v) order.push_back(static_cast<int>(v));
  }
  PexSchedule bound =
      schedule_pex_along_order(pg, order, options.allow_loops ? options.loop_limits.max_loop_ops : 0);
  const int64_t upper = bound.peak_bytes;

  // Pass 1: the minimum peak.
  BestFirst<int64_t> peak_search;
  const double split = options.allow_loops ? 0.5 : 1.0;
  const bool found = peak_search.run(
      pg, options, [](int64_t key, const Transition& t) { return std::max(key, t.peak_bytes); },
      [upper](const Transition& t) { return t.peak_bytes <= upper; }, 0.0, split, truncated);
  schedule.states_expanded = peak_search.expanded();
  if (!found) {
    bound.states_expanded = schedule.states_expanded;
    bound.note = "search stopped (" + std::string(options.deadline.expired() ? "time limit" : "state cap") +
                 ") after " + std::to_string(schedule.states_expanded) +
                 " states; loops only over runs of the best operator order";
    return bound;
  }
  schedule.peak_bytes = peak_search.visit(peak_search.goal()).key;
  schedule.instructions = peak_search.path_to(peak_search.goal());
  schedule.optimal = !truncated;
  if (!options.allow_loops) {
    schedule.note = "best operator order: " + std::to_string(schedule.states_expanded) + " states";
    return schedule;
  }

  // Pass 2: at that peak, the fewest Accumulate operators, then loops.
  using Counts = std::pair<int, int>;
  BestFirst<Counts> count_search;
  const int64_t peak = schedule.peak_bytes;
  bool truncated_counts = false;
  const bool counted = count_search.run(
      pg, options,
      [](Counts key, const Transition& t) {
        if (!t.instruction.is_loop) return key;
        const auto& rules = t.instruction.loop.rules;
        key.first += static_cast<int>(std::count(rules.begin(), rules.end(), PexRule::kAccumulate));
        key.second += 1;
        return key;
      },
      [peak](const Transition& t) { return t.peak_bytes <= peak; }, split, 1.0, truncated_counts);
  schedule.states_expanded += count_search.expanded();
  if (counted) schedule.instructions = count_search.path_to(count_search.goal());
  TINYFIT_CHECK(max_peak(schedule.instructions) == peak) << "pex: second pass changed the peak";
  int loops = 0;
  for (const PexInstruction& i : schedule.instructions) loops += i.is_loop ? 1 : 0;
  schedule.note = std::string(schedule.optimal ? "optimal" : "loop enumeration capped") + ": " +
                  std::to_string(loops) + " loops, " + std::to_string(schedule.states_expanded) + " states" +
                  (counted ? "" : "; fewest-loops pass cut short");
  return schedule;
}

}  // namespace tinyfit::partition
