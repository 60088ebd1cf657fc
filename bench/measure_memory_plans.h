// One model through every ordering and placement algorithm, timed, with the
// cross-checks a single run can make (the bench's "this is a bug" list).
// Plain data; print_memory_plans.h turns it into Markdown or JSON.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"

namespace tinyfit::bench {

// Both clocks: the table shows CPU time, which other processes on a shared
// machine barely disturb (a preempted 0.02 ms run otherwise reads 8 ms); the
// wall time, which --time-limit bounds, is in the JSON.
struct Timing {
  double cpu_seconds = 0.0;   // this thread's CPU time
  double wall_seconds = 0.0;
};

struct OrderRun {
  std::string algorithm;       // list_order_algorithms() name
  int64_t peak_bytes = 0;      // recomputed from the order, not taken on trust
  Timing time;
  bool optimal = false;        // the algorithm's own claim
  std::string note;            // OrderResult::note
  int64_t states_explored = 0;
  bool topological = true;
};

struct PlacementRun {
  std::string algorithm;       // list_placement_algorithms() name
  int64_t arena_bytes = 0;
  Timing time;
  double fragmentation = 1.0;  // arena_bytes / live peak of the same records
  bool proven_optimal = false;
  std::string winner;          // Placement::algorithm (differs from `algorithm` for best)
  std::string note;
  bool valid = true;           // verify_placement accepted it
};

struct InplaceRun {
  std::string order;           // the order it was applied to
  int64_t peak_bytes = 0;
  int merges = 0;              // operators that run in place
  Timing time;
};

// The exact order searched together with its in-place merges
// (OrderOptions::inplace), and the arena of its plan placed by place-best.
struct JointRun {
  int64_t peak_bytes = 0;      // the analysis of the plan of its order and merges
  Timing time;
  bool optimal = false;        // proven for the joint model
  std::string note;            // OrderResult::note
  int merges = 0;              // operators that run in place
  int64_t arena_bytes = 0;     // place-best on that plan
  Timing placement_time;
  bool arena_proven = false;   // place-best proved the minimum arena
  std::string placement_note;  // the winner and, when arena > peak, why
};

struct ModelMeasurement {
  std::string model;           // as listed: path relative to the models dir, or zoo:NAME
  std::string import_error;    // Diag::format(); the rest is empty when set
  Timing import_time;
  int operators = 0;           // steps (aliases are no step)
  int buffers = 0;
  int64_t lower_bound_bytes = 0;
  std::vector<OrderRun> orders;            // given, rpo, exact, hierarchical, then any newer
  std::string best_order;                  // lowest peak, ties as order_best breaks them
  int64_t best_peak_bytes = 0;
  InplaceRun inplace_given;
  InplaceRun inplace_best;     // merges added to the best plain order (what `--order exact --inplace` did before)
  JointRun inplace_joint;
  int64_t hmcos_peak_bytes = 0;            // HMCOS's peak where measured (shared/notes/BASELINES.md), else 0
  int64_t placement_peak_bytes = 0;        // live peak of the given order's records
  std::vector<PlacementRun> placements;    // every algorithm incl. best, on the given order
  std::vector<std::string> problems;       // broken guarantees: bugs to report, not results
};

struct MeasureOptions {
  double time_limit_seconds = 60.0;  // per search (each order, each placement)
  // Called before each phase ("exact", "place best-fit") and with the search's
  // fraction done; the bench draws its terminal progress line from it.
  std::function<void(std::string_view phase, double fraction)> progress;
};

// Starts both clocks on construction.
class Stopwatch {
 public:
  Stopwatch();
  Timing read() const;

 private:
  double cpu_start_;
  std::chrono::steady_clock::time_point wall_start_;
};

// Runs every algorithm on `graph`. Never throws for a model: an internal error
// of a layer (TINYFIT_CHECK) becomes a problem in the result.
ModelMeasurement measure_memory_plans(const ir::Graph& graph, std::string model_name,
                                      const MeasureOptions& options);

}  // namespace tinyfit::bench
