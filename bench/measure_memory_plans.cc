#include "measure_memory_plans.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>
#include <exception>
#include <new>
#include <span>
#include <utility>

#include "analysis/buffer_graph.h"
#include "analysis/inplace.h"
#include "analysis/lower_bound.h"
#include "analysis/memory_profile.h"
#include "plan/place_best.h"
#include "plan/placement.h"
#include "plan/placement_input.h"
#include "plan/verify_placement.h"
#include "schedule/order_best.h"
#include "schedule/order_exact.h"
#include "support/diag.h"

namespace tinyfit::bench {
namespace {

// The table's column order (issue 3); algorithms added later follow in
// list_order_algorithms() order.
constexpr std::string_view kOrderColumns[] = {"given", "rpo", "exact", "hierarchical"};

template <typename F>
auto time_call(Timing& time, F&& f) {
  const Stopwatch stopwatch;
  auto result = f();
  time = stopwatch.read();
  return result;
}

Deadline make_deadline(double seconds) { return Deadline(std::chrono::duration<double>(seconds)); }

double read_thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::vector<const schedule::OrderAlgorithm*> list_measured_orders() {
  std::vector<const schedule::OrderAlgorithm*> algorithms;
  for (std::string_view name : kOrderColumns) {
    if (const schedule::OrderAlgorithm* a = schedule::find_order_algorithm(name)) algorithms.push_back(a);
  }
  for (const schedule::OrderAlgorithm& a : schedule::list_order_algorithms()) {
    // "best" reruns all the others; the bench takes their minimum instead.
    if (a.name == "best") continue;
    if (std::find(algorithms.begin(), algorithms.end(), &a) == algorithms.end()) algorithms.push_back(&a);
  }
  return algorithms;
}

void report(const MeasureOptions& options, std::string_view phase, double fraction) {
  if (options.progress) options.progress(phase, fraction);
}

std::vector<analysis::Order> run_orders(const analysis::BufferGraph& bg, const MeasureOptions& options,
                                        ModelMeasurement& m) {
  std::vector<analysis::Order> orders;
  for (const schedule::OrderAlgorithm* algorithm : list_measured_orders()) {
    const std::string name(algorithm->name);
    report(options, name, 0.0);
    schedule::OrderOptions order_options;
    order_options.deadline = make_deadline(options.time_limit_seconds);
    if (options.progress) {
      order_options.progress = [&options, name](double fraction) { options.progress(name, fraction); };
    }
    OrderRun run;
    run.algorithm = name;
    schedule::OrderResult result = time_call(run.time, [&] { return algorithm->run(bg, order_options); });
    run.optimal = result.optimal;
    run.note = result.note;
    run.states_explored = result.states_explored;
    run.topological = analysis::is_topological_order(bg, result.order);
    if (run.topological) {
      run.peak_bytes = analysis::compute_memory_profile(bg, result.order).peak_bytes;
      if (run.peak_bytes != result.peak_bytes) {
        m.problems.push_back(name + " reports peak " + std::to_string(result.peak_bytes) +
                             " but its order's profile peaks at " + std::to_string(run.peak_bytes));
      }
    } else {
      m.problems.push_back(name + " returned an order that is not topological");
    }
    m.orders.push_back(std::move(run));
    orders.push_back(std::move(result.order));
  }
  return orders;
}

// The best order as order_best picks it: lowest peak, ties to the first in
// list_order_algorithms() (exact first).
size_t find_best_order(const ModelMeasurement& m) {
  size_t best = m.orders.size();
  for (const schedule::OrderAlgorithm& a : schedule::list_order_algorithms()) {
    for (size_t i = 0; i < m.orders.size(); ++i) {
      const OrderRun& run = m.orders[i];
      if (run.algorithm != a.name || !run.topological) continue;
      if (best == m.orders.size() || run.peak_bytes < m.orders[best].peak_bytes) best = i;
    }
  }
  return best;
}

void check_orders(ModelMeasurement& m) {
  int64_t min_peak = std::numeric_limits<int64_t>::max();
  for (const OrderRun& run : m.orders) {
    if (run.topological) min_peak = std::min(min_peak, run.peak_bytes);
  }
  for (const OrderRun& run : m.orders) {
    if (!run.topological) continue;
    if (run.peak_bytes < m.lower_bound_bytes) {
      m.problems.push_back(run.algorithm + " peak " + std::to_string(run.peak_bytes) +
                           " is below the lower bound " + std::to_string(m.lower_bound_bytes));
    }
    if (run.optimal && run.peak_bytes > min_peak) {
      m.problems.push_back(run.algorithm + " claims optimal at " + std::to_string(run.peak_bytes) +
                           " but another order reaches " + std::to_string(min_peak));
    }
    // order_exact.h guarantees a peak no worse than the orders it is seeded with.
    if (run.algorithm == "exact" && run.peak_bytes > min_peak) {
      m.problems.push_back("exact peak " + std::to_string(run.peak_bytes) + " is worse than " +
                           std::to_string(min_peak) + " (a heuristic's)");
    }
  }
}

InplaceRun measure_inplace(const analysis::BufferGraph& bg, const analysis::Order& order, const OrderRun& ordinary,
                           ModelMeasurement& m) {
  InplaceRun run;
  run.order = ordinary.algorithm;
  const analysis::InplaceResult inplace =
      time_call(run.time, [&] { return analysis::apply_inplace(bg, order); });
  run.peak_bytes = analysis::compute_memory_profile(inplace.graph, order).peak_bytes;
  run.merges = static_cast<int>(inplace.merges.size());
  if (run.peak_bytes > ordinary.peak_bytes) {
    m.problems.push_back("in-place on the " + run.order + " order raises the peak from " +
                         std::to_string(ordinary.peak_bytes) + " to " + std::to_string(run.peak_bytes));
  }
  return run;
}

// order_exact with in-place chosen with the order; its plan placed by place-best.
JointRun measure_joint(const analysis::BufferGraph& bg, const MeasureOptions& options, ModelMeasurement& m) {
  report(options, "exact+inplace", 0.0);
  schedule::OrderOptions order_options;
  order_options.inplace = true;
  order_options.deadline = make_deadline(options.time_limit_seconds);
  if (options.progress) {
    order_options.progress = [&options](double fraction) { options.progress("exact+inplace", fraction); };
  }
  JointRun run;
  const schedule::OrderResult result = time_call(run.time, [&] { return schedule::order_exact(bg, order_options); });
  run.optimal = result.optimal;
  run.note = result.note;
  const analysis::InplaceResult merged = analysis::apply_inplace_choices(bg, result.order, result.inplace_choices);
  run.merges = static_cast<int>(merged.merges.size());
  const analysis::MemoryProfile profile = analysis::compute_memory_profile(merged.graph, result.order);
  run.peak_bytes = profile.peak_bytes;
  if (run.peak_bytes != result.peak_bytes) {
    m.problems.push_back("exact+inplace reports peak " + std::to_string(result.peak_bytes) + " but its plan peaks at " +
                         std::to_string(run.peak_bytes));
  }
  if (run.optimal && run.peak_bytes > m.inplace_best.peak_bytes) {
    m.problems.push_back("exact+inplace claims optimal at " + std::to_string(run.peak_bytes) + " but in-place on the " +
                         m.inplace_best.order + " order reaches " + std::to_string(m.inplace_best.peak_bytes));
  }
  if (run.peak_bytes < analysis::compute_peak_lower_bound(bg, true).bytes) {
    m.problems.push_back("exact+inplace peak " + std::to_string(run.peak_bytes) + " is below its lower bound");
  }
  report(options, "place exact+inplace", 0.0);
  plan::PlacementOptions placement_options;
  placement_options.deadline = make_deadline(options.time_limit_seconds);
  // As tinyfit analyze and compile do: the plan with every merge chosen, and
  // when that stays above the peak, the plan with only the merges the peak needs.
  auto place = [&](const analysis::InplaceChoices& choices, const std::string& which) {
    const analysis::BufferGraph g = analysis::apply_inplace_choices(bg, result.order, choices).graph;
    const analysis::MemoryProfile p = analysis::compute_memory_profile(g, result.order);
    const std::vector<plan::PlacementBuffer> records = plan::build_placement_buffers(g, p, result.order);
    Timing time;
    const plan::Placement placement =
        time_call(time, [&] { return plan::place_best(records, placement_options); });
    run.placement_time.cpu_seconds += time.cpu_seconds;
    run.placement_time.wall_seconds += time.wall_seconds;
    const Status valid = plan::verify_placement(records, placement);
    if (!valid) m.problems.push_back("placement of the exact+inplace plan fails verification: " + valid.error().message);
    if (p.peak_bytes != run.peak_bytes) m.problems.push_back("the merges the peak needs change the peak");
    if (run.arena_bytes == 0 || placement.arena_bytes < run.arena_bytes) {
      run.arena_bytes = placement.arena_bytes;
      run.arena_proven = placement.proven_optimal;
      run.placement_note = which + ", " + placement.algorithm + (placement.note.empty() ? "" : "; " + placement.note);
    }
  };
  place(result.inplace_choices, "every merge");
  if (run.arena_bytes > run.peak_bytes) {
    place(analysis::keep_choices_the_peak_needs(bg, result.order, result.inplace_choices), "the merges the peak needs");
  }
  if (run.arena_bytes < run.peak_bytes) {
    m.problems.push_back("exact+inplace arena " + std::to_string(run.arena_bytes) + " below its peak");
  }
  return run;
}

void run_placements(std::span<const plan::PlacementBuffer> records, const MeasureOptions& options,
                    ModelMeasurement& m) {
  for (const plan::PlacementAlgorithm& algorithm : plan::list_placement_algorithms()) {
    const std::string name(algorithm.name);
    report(options, "place " + name, 0.0);
    plan::PlacementOptions placement_options;
    placement_options.deadline = make_deadline(options.time_limit_seconds);
    PlacementRun run;
    run.algorithm = name;
    const plan::Placement placement =
        time_call(run.time, [&] { return algorithm.place(records, placement_options); });
    run.arena_bytes = placement.arena_bytes;
    run.fragmentation = plan::compute_fragmentation(placement.arena_bytes, m.placement_peak_bytes);
    run.proven_optimal = placement.proven_optimal;
    run.winner = placement.algorithm;
    run.note = placement.note;
    const Status valid = plan::verify_placement(records, placement);
    run.valid = static_cast<bool>(valid);
    if (!valid) m.problems.push_back("placement " + name + " fails verification: " + valid.error().message);
    m.placements.push_back(std::move(run));
  }
}

void check_placements(ModelMeasurement& m) {
  auto arena_of = [&m](std::string_view name) -> int64_t {
    for (const PlacementRun& run : m.placements) {
      if (run.algorithm == name && run.valid) return run.arena_bytes;
    }
    return -1;
  };
  int64_t min_heuristic = std::numeric_limits<int64_t>::max();
  for (std::string_view name : {"greedy-by-size", "greedy-by-conflicts", "best-fit"}) {
    if (const int64_t a = arena_of(name); a >= 0) min_heuristic = std::min(min_heuristic, a);
  }
  int64_t min_all = std::numeric_limits<int64_t>::max();
  for (const PlacementRun& run : m.placements) {
    if (run.valid && run.algorithm != "best") min_all = std::min(min_all, run.arena_bytes);
  }
  for (const PlacementRun& run : m.placements) {
    if (!run.valid) continue;
    if (run.arena_bytes < m.placement_peak_bytes) {
      m.problems.push_back("placement " + run.algorithm + " arena " + std::to_string(run.arena_bytes) +
                           " is below the live peak " + std::to_string(m.placement_peak_bytes));
    }
    if (run.proven_optimal && run.arena_bytes > min_all) {
      m.problems.push_back("placement " + run.algorithm + " claims optimal at " +
                           std::to_string(run.arena_bytes) + " but another reaches " + std::to_string(min_all));
    }
  }
  // place_hill_climb.h and place_best.h promise these.
  if (const int64_t hill = arena_of("hill-climb"); hill >= 0 && hill > min_heuristic) {
    m.problems.push_back("hill-climb arena " + std::to_string(hill) + " is worse than a greedy's " +
                         std::to_string(min_heuristic));
  }
  if (const int64_t best = arena_of("best"); best >= 0 && best > min_all) {
    m.problems.push_back("best placement " + std::to_string(best) + " is worse than " + std::to_string(min_all));
  }
}

void measure_graph(const ir::Graph& graph, const MeasureOptions& options, ModelMeasurement& m) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  m.operators = static_cast<int>(bg.operators.size());
  m.buffers = static_cast<int>(bg.buffers.size());
  m.lower_bound_bytes = analysis::compute_peak_lower_bound(bg, false).bytes;

  const std::vector<analysis::Order> orders = run_orders(bg, options, m);
  check_orders(m);
  const size_t best = find_best_order(m);
  const auto given = std::find_if(m.orders.begin(), m.orders.end(),
                                  [](const OrderRun& r) { return r.algorithm == "given"; });
  TINYFIT_CHECK(given != m.orders.end() && given->topological) << "the given order is not measurable";
  const size_t given_index = static_cast<size_t>(given - m.orders.begin());
  if (best < m.orders.size()) {
    m.best_order = m.orders[best].algorithm;
    m.best_peak_bytes = m.orders[best].peak_bytes;
  }

  report(options, "in-place", 0.0);
  m.inplace_given = measure_inplace(bg, orders[given_index], m.orders[given_index], m);
  if (best < m.orders.size()) m.inplace_best = measure_inplace(bg, orders[best], m.orders[best], m);
  m.inplace_joint = measure_joint(bg, options, m);

  // Placement on the given order without in-place: the arena that ordinary
  // execution needs, so fragmentation compares algorithms on equal footing.
  const analysis::Order& given_order = orders[given_index];
  const analysis::MemoryProfile profile = analysis::compute_memory_profile(bg, given_order);
  const std::vector<plan::PlacementBuffer> records = plan::build_placement_buffers(bg, profile, given_order);
  m.placement_peak_bytes = plan::compute_live_peak_bytes(records);
  if (m.placement_peak_bytes != profile.peak_bytes) {
    m.problems.push_back("placement records peak at " + std::to_string(m.placement_peak_bytes) +
                         " but the given order's profile at " + std::to_string(profile.peak_bytes));
  }
  run_placements(records, options, m);
  check_placements(m);
}

}  // namespace

Timing Stopwatch::read() const {
  return {read_thread_cpu_seconds() - cpu_start_,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count()};
}

Stopwatch::Stopwatch() : cpu_start_(read_thread_cpu_seconds()), wall_start_(std::chrono::steady_clock::now()) {}

ModelMeasurement measure_memory_plans(const ir::Graph& graph, std::string model_name,
                                      const MeasureOptions& options) {
  ModelMeasurement m;
  m.model = std::move(model_name);
  // One model's bug must not hide the rest of the table: record it and go on.
  try {
    measure_graph(graph, options, m);
  } catch (const InternalError& e) {
    m.problems.push_back(std::string("internal error: ") + e.what());
  } catch (const std::bad_alloc&) {
    m.problems.push_back("out of memory");
  } catch (const std::exception& e) {
    // A stray std::out_of_range and the like are our bugs too.
    m.problems.push_back(std::string("internal error (exception): ") + e.what());
  }
  return m;
}

}  // namespace tinyfit::bench
