// MOTES Algorithm 1: the memory-bottleneck-aware beam search over partition
// schemes, under a latency budget.
//
// State: a set of row schemes (disjoint operator stretches, each with a
// tile). Its memory M is the peak of the fine-grained graph (each scheme
// contracted into its loop, contract_loops.h) under `base_order` contracted
// the same way, with Concat inputs written in place as the lowering writes
// them (analysis/concat_in_place.h), less what row-loop overlaps share at
// their loops' steps when the lowering will declare them
// (options.row_overlaps); its latency L is the ordinary plan's predicted latency plus
// each scheme's predicted extra (options.scheme_latency_delta). Iteration:
//   - bottlenecks: the buffers live at every peak step of the best state
//     (a loop's own tensors when the peak is inside a loop);
//   - the unvisited cell holding the most bottleneck bytes (line 8);
//   - for each candidate stretch of it, by depth (scheme_candidates.h), each
//     beam state grows by every scheme GenSchemes makes of it (every tile;
//     a row scheme also with the readers after it that bring the wide
//     tensors it hands on to its sink's rows, or ending at the global pool
//     that reads its output, readers_to_sink_rows.h; or with the later
//     readers of the wide tensors it reads or makes, down to narrower
//     tensors, and without the operators that only narrow a tensor from
//     before it, split_input_readers.h, when options.split_input_readers),
//     standing alone or merged with the state's scheme next to it (a loop
//     extended across cells, as patch-based inference runs the first blocks
//     of MobileNetV2 / MCUNet together), and also stays as it is (MOTES's
//     dummy scheme); the best beam_width states stay (LessThen, line 4:
//     within the budget L <= delta * L(ordinary) by (M, L), otherwise by (L, M);
//     tinyfit breaks ties of M by the number of cells with a step at M, so
//     that a plateau of equal peaks over several cells is lowered one cell
//     at a time, then by the searched cell's own peak);
//   - until no unvisited cell holds a bottleneck.
// Then two loops of the best state are merged into one (with the operators
// between them) while that makes a state better by LessThen: the beam grows a
// loop one cell at a time, and a step that does not lower the peak by itself
// can leave it (a loop carried through a residual block still ends on a whole
// tensor; one carried on into the next block does not). Then, up to 4
// rounds, a loop over the whole cells holding a bottleneck tensor's producer
// and every reader (bottleneck_spans.h) replaces the schemes it overlaps when
// that makes the state better by LessThen: in a NAS network a cell's outputs
// are read two cells later, and the beam, scoring each one-cell step alone,
// does not reach such a loop.
// The result is the smallest state by LessThen; with a memory budget, the
// fastest state seen whose peak fits it within the latency budget, when one
// does (the latency budget holds with or without a memory budget).
//
// The search only scores states; plan/lower_motes.h lowers the result, and
// its final schedule searches orders properly (MOTES uses reverse post-order
// here; the search keeps the base order, which the caller picks well).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "ir/graph.h"
#include "partition/partition_scheme.h"
#include "partition/row_geometry.h"
#include "support/deadline.h"

namespace tinyfit::partition {

// δ = predicted latency over ordinary execution's that a plan may have.
inline constexpr double kNoLatencyBudget = std::numeric_limits<double>::infinity();

struct MotesSearchOptions {
  double latency_budget = 1.05;  // δ; kNoLatencyBudget: the smallest memory
  int beam_width = 8;            // β (MOTES uses 4 to 8)
  int ends_per_side = 4;         // stretch ends tried on either side of a bottleneck operator
  int max_tiles = 8;             // GenSchemes: tiles per stretch
  std::optional<int64_t> sram_bytes;  // with it, the fastest state within delta that fits wins
  Deadline deadline;
  std::function<void(double fraction)> progress;
  // Whether the runtime can run a node on a window of rows, and on a range of
  // tokens (exec/ knows); without runs_by_tokens, no token loops.
  std::function<bool(const ir::Node&)> runs_by_rows;
  std::function<bool(const ir::Node&)> runs_by_tokens;
  // Predicted latency of ordinary execution, and what a scheme's loop adds to
  // the latency of its operators run whole (the cost model, or a stand-in).
  double ordinary_latency = 0;
  std::function<double(const PartitionScheme&, const RowGeometry&)> scheme_latency_delta;
  // Score each row loop with the overlap its lowering declares when asked
  // (plan/lower_row_loop_overlap.h): at the loop's step, its output shares
  // the bytes row_loop_overlap_estimate.h gives with the input it consumes
  // (the pair sharing the most whose input dies at the loop).
  bool row_overlaps = false;
  // Also try each row loop with the later readers of the wide tensors it
  // reads or makes, and without the operators that only narrow a tensor
  // from before it (split_input_readers.h).
  bool split_input_readers = false;
};

struct MotesSearchResult {
  std::vector<PartitionScheme> schemes;  // the chosen state, by first operator
  int64_t peak_bytes = 0;                // its M
  double latency = 0;                    // its L
  int64_t base_peak_bytes = 0;           // M of the empty state (the base order, no loops)
  int iterations = 0;                    // of the while loop (cells visited)
  int64_t states_scored = 0;
  bool stopped_early = false;            // the deadline cut the search
  std::string note;                      // one line: what was searched, why it stopped
};

// Requires: bg == build_buffer_graph(graph); base_order topological for bg;
// the two callbacks set.
// Guarantees: every returned scheme passed make_partition_scheme and
// compute_row_geometry; the schemes' operators are disjoint (stretches,
// some with readers after them: readers_to_sink_rows.h);
// without a memory budget the result's latency is within delta x the
// ordinary latency (the empty state always is, for delta >= 1, and LessThen
// prefers it to any state beyond the budget). Deterministic.
MotesSearchResult search_motes_schemes(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                       const analysis::Order& base_order, const MotesSearchOptions& options);

}  // namespace tinyfit::partition
