#include "partition/motes_search.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "analysis/concat_in_place.h"
#include "partition/bottleneck_spans.h"
#include "partition/cells.h"
#include "partition/contract_loops.h"
#include "partition/readers_to_sink_rows.h"
#include "partition/row_loop_overlap_estimate.h"
#include "partition/scheme_candidates.h"
#include "partition/split_input_readers.h"

namespace tinyfit::partition {
namespace {

struct State {
  std::vector<PartitionScheme> schemes;  // by first operator
  int64_t peak = 0;
  double latency = 0;
  // How many cells have a step at `peak` (a step of a loop counts for each
  // cell its operators are in): where the peak is a plateau over several
  // cells (a NAS network's cells alike), a partition that lowers one of them
  // is progress the peak alone does not show.
  int64_t cells_at_peak = 0;
  // The peak over the steps that run an operator of the cell being searched:
  // breaks further ties while the global peak sits elsewhere, so that a
  // cell's best partition is kept for when the peak comes back to it.
  int64_t cell_peak = 0;
};

// Operators and tile: a stretch with readers added or operators hoisted out
// (readers_to_sink_rows.h, split_input_readers.h) is no range of the order.
using SchemeKey = std::pair<std::vector<int>, int64_t>;

SchemeKey key_of(const PartitionScheme& s) { return {s.operators, s.tile}; }

std::vector<SchemeKey> key_of(const State& state) {
  std::vector<SchemeKey> keys;
  for (const PartitionScheme& s : state.schemes) keys.push_back(key_of(s));
  return keys;
}

// What a scheme costs: found once per (stretch, tile).
struct SchemeFacts {
  PartitionScheme scheme;
  int64_t internal_bytes = 0;
  double latency_delta = 0;
  std::vector<RowLoopOverlapPair> overlaps;  // with options.row_overlaps, most shared bytes first
};

// Declared overlaps shift offsets by multiples of this (the lowering rounds
// the limit down to a buffer's alignment; 16 bounds every alignment a plan
// buffer takes, so the estimate never shares more than the lowering).
constexpr int64_t kOverlapAlignment = 16;

// Scores states: schemes (cached), their contracted graph's peak under the
// base order, their latency; and the bottleneck buffers of a state.
class Scorer {
 public:
  // cell_of_op: each operator's cell, 0 .. cell_count - 1.
  Scorer(const ir::Graph& graph, const analysis::BufferGraph& bg, const analysis::Order& base_order,
         const MotesSearchOptions& options, std::vector<int> cell_of_op, size_t cell_count)
      : graph_(graph),
        bg_(bg),
        base_order_(base_order),
        options_(options),
        acg_(build_acg(graph)),
        cell_of_op_(std::move(cell_of_op)),
        cell_count_(cell_count) {}

  // The schemes GenSchemes makes of a stretch (one per tile); empty when the
  // stretch is no valid row or token scheme or a kernel cannot run by rows.
  const std::vector<const SchemeFacts*>& generate(const Stretch& stretch) {
    auto [it, added] = generated_.try_emplace({stretch.first, stretch.last});
    if (!added) return it->second;
    auto runs = [&](const std::vector<int>& ops, const std::function<bool(const ir::Node&)>& serves) {
      return std::all_of(ops.begin(), ops.end(), [&](int op) {
        return serves && serves(graph_.nodes[static_cast<size_t>(bg_.operators[static_cast<size_t>(op)].node)]);
      });
    };
    // Rows of NHWC tensors, else tokens (a stretch has at most one of them).
    // A token loop runs only the operators of the stretch its sink's tokens
    // need by tokens (select_loop_operators): attention's keys and values,
    // read whole, are made before it.
    std::vector<PartitionScheme> wholes;
    Result<PartitionScheme> whole = fail("no kernels", ExitCode::kInternal);
    if (runs(stretch.operators(), options_.runs_by_rows)) {
      whole = make_partition_scheme(graph_, bg_, acg_, stretch.operators(), PartitionAxis::kRows, 1);
      // A row loop is also tried with the readers after it that bring the
      // wide tensors it hands on down to its sink's rows (readers_to_sink_rows.h).
      const std::vector<int> with_readers =
          add_readers_to_sink_rows(graph_, bg_, stretch.operators(), options_.runs_by_rows);
      if (whole && with_readers.size() > whole->operators.size()) {
        Result<PartitionScheme> extended =
            make_partition_scheme(graph_, bg_, acg_, with_readers, PartitionAxis::kRows, 1);
        if (extended) wholes.push_back(std::move(*extended));
      }
      // And ending at the global pool that reads its sink's output.
      const std::vector<int> with_pool =
          add_global_pool_reader(graph_, bg_, stretch.operators(), options_.runs_by_rows);
      if (whole && with_pool.size() > whole->operators.size()) {
        Result<PartitionScheme> pooled = make_partition_scheme(graph_, bg_, acg_, with_pool, PartitionAxis::kRows, 1);
        if (pooled) wholes.push_back(std::move(*pooled));
      }
      // And with the later readers of the wide tensors it reads or makes,
      // so that they die in it, and then without what only narrows a tensor
      // from before it (split_input_readers.h).
      const std::vector<int> with_co_readers =
          options_.split_input_readers
              ? add_split_input_readers(graph_, bg_, stretch.operators(), options_.runs_by_rows)
              : stretch.operators();
      if (whole && with_co_readers.size() > whole->operators.size()) {
        Result<PartitionScheme> consuming =
            make_partition_scheme(graph_, bg_, acg_, with_co_readers, PartitionAxis::kRows, 1);
        if (consuming) wholes.push_back(std::move(*consuming));
        const std::vector<int> hoisted = hoist_narrowing_readers(bg_, with_co_readers);
        if (consuming && hoisted.size() < with_co_readers.size()) {
          Result<PartitionScheme> lean = make_partition_scheme(graph_, bg_, acg_, hoisted, PartitionAxis::kRows, 1);
          if (lean) wholes.push_back(std::move(*lean));
        }
      }
    }
    if (!whole) {
      const ir::Node& sink = graph_.nodes[static_cast<size_t>(bg_.operators[static_cast<size_t>(stretch.last)].node)];
      const std::vector<int> ops = select_loop_operators(
          graph_, bg_, stretch.operators(), find_sink_axis(PartitionAxis::kTokens, graph_.output_tensor(sink, 0)));
      if (ops.size() > 1 && runs(ops, options_.runs_by_tokens)) {
        whole = make_partition_scheme(graph_, bg_, acg_, ops, PartitionAxis::kTokens, 1);
      }
    }
    if (whole) wholes.insert(wholes.begin(), std::move(*whole));
    for (const PartitionScheme& base : wholes) {
      for (int64_t tile : list_tiles(base.extent, options_.max_tiles)) {
        PartitionScheme scheme = base;
        scheme.tile = tile;
        Result<RowGeometry> geometry = compute_row_geometry(graph_, bg_, scheme);
        if (!geometry) continue;
        const double delta = options_.scheme_latency_delta(scheme, *geometry);
        std::vector<RowLoopOverlapPair> overlaps;
        if (options_.row_overlaps) {
          overlaps = estimate_row_loop_overlaps(graph_, bg_, scheme, *geometry, kOverlapAlignment);
        }
        auto [facts, inserted] = facts_.try_emplace(
            key_of(scheme), SchemeFacts{scheme, geometry->internal_bytes(), delta, std::move(overlaps)});
        it->second.push_back(&facts->second);
      }
    }
    return it->second;
  }

  // Scores `state`; `cell` (operators) is the cell being searched, or empty.
  void score(State& state, const std::vector<int>& cell) {
    ++scored_;
    const Evaluation e = evaluate(state);
    state.peak = e.peak_bytes;
    state.latency = options_.ordinary_latency;
    for (const PartitionScheme& s : state.schemes) state.latency += facts_.at(key_of(s)).latency_delta;
    std::vector<size_t> step_of(e.order.size());
    for (size_t step = 0; step < e.order.size(); ++step) step_of[static_cast<size_t>(e.order[step])] = step;
    std::vector<int64_t> peak_of_cell(cell_count_, 0);
    for (size_t op = 0; op < cell_of_op_.size(); ++op) {
      const size_t step = step_of[static_cast<size_t>(e.cg.operator_of[op])];
      int64_t& peak = peak_of_cell[static_cast<size_t>(cell_of_op_[op])];
      peak = std::max(peak, e.step_bytes[step]);
    }
    state.cells_at_peak = std::count(peak_of_cell.begin(), peak_of_cell.end(), state.peak);
    state.cell_peak = 0;
    for (int op : cell) {
      const size_t step = step_of[static_cast<size_t>(e.cg.operator_of[static_cast<size_t>(op)])];
      state.cell_peak = std::max(state.cell_peak, e.step_bytes[step]);
    }
  }

  // The buffers live at the state's peak (MOTES V_mb), as buffers of bg; a
  // loop at the peak adds the buffers it keeps inside.
  std::vector<int> find_bottlenecks(const State& state) const {
    const Evaluation e = evaluate(state, true);
    std::vector<int> original_of(e.cg.graph.buffers.size(), -1);
    for (size_t b = 0; b < bg_.buffers.size(); ++b) {
      if (e.cg.buffer_of[b] >= 0) original_of[static_cast<size_t>(e.cg.buffer_of[b])] = static_cast<int>(b);
    }
    std::set<int> bottlenecks;
    for (size_t step = 0; step < e.profile.steps.size(); ++step) {
      if (e.step_bytes[step] != e.peak_bytes) continue;
      for (int b : analysis::live_buffers_at(e.profile, e.cg.graph, static_cast<int>(step))) {
        // An input written into its Concat's output has no bytes of its own.
        if (e.cg.graph.buffers[static_cast<size_t>(b)].bytes == 0) continue;
        bottlenecks.insert(original_of[static_cast<size_t>(b)]);
      }
      const int loop = e.cg.loop_of[static_cast<size_t>(e.order[step])];
      if (loop < 0) continue;
      for (int op : state.schemes[static_cast<size_t>(loop)].operators) {
        for (int b : bg_.operators[static_cast<size_t>(op)].outputs) bottlenecks.insert(b);
      }
    }
    return {bottlenecks.begin(), bottlenecks.end()};
  }

  int64_t scored() const { return scored_; }

 private:
  struct Evaluation {
    ContractedGraph cg;  // its graph with Concat inputs in place
    analysis::Order order;
    analysis::MemoryProfile profile;
    // The execution bytes less the loops' overlaps, Concat inputs in place.
    std::vector<int64_t> step_bytes;
    int64_t peak_bytes = 0;
  };

  // With `lifetimes`, e.profile is the profile of e.cg.graph as scored
  // (Concat inputs in place); without, only its steps before them.
  Evaluation evaluate(const State& state, bool lifetimes = false) const {
    std::vector<LoopSummary> loops;
    for (const PartitionScheme& s : state.schemes) {
      loops.push_back({s.operators, facts_.at(key_of(s)).internal_bytes, {}});
    }
    Evaluation e;
    e.cg = contract_loops(bg_, loops);
    e.order = contract_order(bg_, e.cg, base_order_);
    e.profile = analysis::compute_memory_profile(e.cg.graph, e.order);
    std::vector<int64_t> step_bytes(e.order.size(), 0);
    for (size_t step = 0; step < e.order.size(); ++step) {
      const int loop = e.cg.loop_of[static_cast<size_t>(e.order[step])];
      const int64_t shared =
          loop < 0 ? 0 : count_overlap_shared_bytes(state.schemes[static_cast<size_t>(loop)], e, step);
      step_bytes[step] = e.profile.steps[step].execution_bytes - shared;
    }
    // The lowering writes Concat inputs in place (plan/write_concat_in_place.h):
    // scored with the same rule. It moves no loop's input or output, so the
    // overlaps' shared bytes stay as found.
    analysis::ConcatInPlaceEstimate concats =
        analysis::write_concat_inputs_in_place(graph_, std::move(e.cg.graph), e.order, std::move(step_bytes));
    e.cg.graph = std::move(concats.graph);
    e.step_bytes = std::move(concats.step_bytes);
    if (lifetimes && concats.inputs_in_place > 0) e.profile = analysis::compute_memory_profile(e.cg.graph, e.order);
    e.peak_bytes = *std::max_element(e.step_bytes.begin(), e.step_bytes.end());
    return e;
  }

  // The bytes the lowering's overlap of `scheme`'s loop, at `step`, shares:
  // its first pair (most shared) whose input dies at the loop and is no model
  // output (apply_row_loop_overlaps' conditions; the loop's outputs are
  // never used before it).
  int64_t count_overlap_shared_bytes(const PartitionScheme& scheme, const Evaluation& e, size_t step) const {
    for (const RowLoopOverlapPair& pair : facts_.at(key_of(scheme)).overlaps) {
      const int input = e.cg.buffer_of[static_cast<size_t>(pair.input_buffer)];
      if (input < 0 || e.cg.buffer_of[static_cast<size_t>(pair.output_buffer)] < 0) continue;
      if (e.cg.graph.buffers[static_cast<size_t>(input)].is_model_output) continue;
      if (e.profile.lifetimes[static_cast<size_t>(input)].last_step != static_cast<int>(step)) continue;
      return pair.shared_bytes;
    }
    return 0;
  }

  const ir::Graph& graph_;
  const analysis::BufferGraph& bg_;
  const analysis::Order& base_order_;
  const MotesSearchOptions& options_;
  const AxisConnectingGraph acg_;
  const std::vector<int> cell_of_op_;
  const size_t cell_count_;
  std::map<std::pair<int, int>, std::vector<const SchemeFacts*>> generated_;
  std::map<SchemeKey, SchemeFacts> facts_;
  int64_t scored_ = 0;
};

// The stretches a state's schemes take when `stretch` joins it: alone when it
// overlaps none of them, and merged with each neighbour it overlaps or
// touches (and with all of them when there are several). Each result lists
// the indices of the schemes it replaces.
struct Variant {
  Stretch stretch;
  std::vector<size_t> replaced;
};
std::vector<Variant> list_variants(const State& state, const Stretch& stretch) {
  std::vector<size_t> neighbours;
  bool overlaps = false;
  for (size_t i = 0; i < state.schemes.size(); ++i) {
    const int first = state.schemes[i].operators.front();
    const int last = state.schemes[i].operators.back();
    const bool overlap = first <= stretch.last && stretch.first <= last;
    overlaps = overlaps || overlap;
    if (overlap || last + 1 == stretch.first || stretch.last + 1 == first) neighbours.push_back(i);
  }
  auto merge = [&](const std::vector<size_t>& with) {
    Variant v{stretch, with};
    for (size_t i : with) {
      v.stretch.first = std::min(v.stretch.first, state.schemes[i].operators.front());
      v.stretch.last = std::max(v.stretch.last, state.schemes[i].operators.back());
    }
    return v;
  };
  std::vector<Variant> variants;
  if (!overlaps) variants.push_back({stretch, {}});
  for (size_t i : neighbours) variants.push_back(merge({i}));
  if (neighbours.size() > 1) variants.push_back(merge(neighbours));
  // A merge that swallows a scheme it does not replace is no variant.
  std::erase_if(variants, [&](const Variant& v) {
    for (size_t i = 0; i < state.schemes.size(); ++i) {
      const bool replaced = std::find(v.replaced.begin(), v.replaced.end(), i) != v.replaced.end();
      const int first = state.schemes[i].operators.front();
      const int last = state.schemes[i].operators.back();
      if (!replaced && first <= v.stretch.last && v.stretch.first <= last) return true;
    }
    return false;
  });
  return variants;
}

// `state` with the schemes at `replaced` taken out and `scheme` in, by first
// operator; nullopt when `scheme` shares an operator with a scheme it does
// not replace (the readers a scheme adds past its stretch,
// readers_to_sink_rows.h, may reach another loop's operators).
std::optional<State> replace_schemes(const State& state, const std::vector<size_t>& replaced,
                                     const PartitionScheme& scheme) {
  State grown;
  for (size_t i = 0; i < state.schemes.size(); ++i) {
    if (std::find(replaced.begin(), replaced.end(), i) != replaced.end()) continue;
    const std::vector<int>& kept = state.schemes[i].operators;
    for (int op : scheme.operators) {
      if (std::binary_search(kept.begin(), kept.end(), op)) return std::nullopt;
    }
    grown.schemes.push_back(state.schemes[i]);
  }
  grown.schemes.push_back(scheme);
  std::sort(grown.schemes.begin(), grown.schemes.end(), [](const PartitionScheme& a, const PartitionScheme& b) {
    return a.operators.front() < b.operators.front();
  });
  return grown;
}

// Rounds of long loops over bottleneck spans, and how many cells past the
// last reader a span may run on (bottleneck_spans.h).
constexpr int kSpanRounds = 4;
constexpr int kSpanExtraCells = 2;

}  // namespace

MotesSearchResult search_motes_schemes(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                       const analysis::Order& base_order, const MotesSearchOptions& options) {
  TINYFIT_CHECK(options.runs_by_rows && options.scheme_latency_delta) << "motes search without its callbacks";
  TINYFIT_CHECK(options.beam_width >= 1) << "beam width " << options.beam_width;
  const std::vector<Cell> cells = find_cells(bg);
  std::vector<int> cell_of_op(bg.operators.size(), -1);
  for (size_t c = 0; c < cells.size(); ++c) {
    for (int op : cells[c].operators) cell_of_op[static_cast<size_t>(op)] = static_cast<int>(c);
  }
  Scorer scorer(graph, bg, base_order, options, cell_of_op, cells.size());
  const double latency_limit = options.ordinary_latency * options.latency_budget;
  // LessThen (Algorithm 1, line 4), ties of the peak broken by the cells at
  // it, then by the searched cell's own peak.
  auto less = [latency_limit](const State& a, const State& b) {
    if (a.latency <= latency_limit && b.latency <= latency_limit) {
      return std::tie(a.peak, a.cells_at_peak, a.cell_peak, a.latency) <
             std::tie(b.peak, b.cells_at_peak, b.cell_peak, b.latency);
    }
    return std::tie(a.latency, a.peak, a.cells_at_peak, a.cell_peak) <
           std::tie(b.latency, b.peak, b.cells_at_peak, b.cell_peak);
  };
  MotesSearchResult result;
  State empty;
  scorer.score(empty, {});
  result.base_peak_bytes = empty.peak;
  std::optional<State> fastest_fitting;
  auto note_fit = [&](const State& s) {
    if (!options.sram_bytes || s.peak > *options.sram_bytes || s.latency > latency_limit) return;
    if (!fastest_fitting || std::tie(s.latency, s.peak) < std::tie(fastest_fitting->latency, fastest_fitting->peak)) {
      fastest_fitting = s;
    }
  };
  note_fit(empty);

  // MOTES visits each cell once (C_rest). A partition of one cell moves the
  // peak to the loop's own inputs and outputs, which only a loop extended
  // into the next cell removes, so tinyfit may come back to a cell: a cell is
  // skipped only while the peak has not dropped since it was last searched,
  // and the search ends when every cell holding a bottleneck is so.
  std::vector<bool> tried(cells.size(), false);
  const int max_iterations = 4 * static_cast<int>(cells.size());
  std::vector<State> beam{empty};
  int64_t best_peak = empty.peak;
  while (!result.stopped_early && result.iterations < max_iterations) {
    const State& best = *std::min_element(beam.begin(), beam.end(), less);
    // Lines 6-8: the cell holding the most bottleneck bytes.
    const std::vector<int> bottlenecks = scorer.find_bottlenecks(best);
    std::vector<int64_t> bytes_in_cell(cells.size(), 0);
    for (int b : bottlenecks) {
      const analysis::Buffer& buffer = bg.buffers[static_cast<size_t>(b)];
      std::set<int> holders;
      if (buffer.producer >= 0) holders.insert(cell_of_op[static_cast<size_t>(buffer.producer)]);
      for (int reader : buffer.consumers) holders.insert(cell_of_op[static_cast<size_t>(reader)]);
      for (int c : holders) bytes_in_cell[static_cast<size_t>(c)] += buffer.bytes;
    }
    int chosen = -1;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (tried[c] || bytes_in_cell[c] == 0) continue;
      if (chosen < 0 || bytes_in_cell[c] > bytes_in_cell[static_cast<size_t>(chosen)]) chosen = static_cast<int>(c);
    }
    if (chosen < 0) break;
    tried[static_cast<size_t>(chosen)] = true;
    ++result.iterations;
    const std::vector<int>& cell = cells[static_cast<size_t>(chosen)].operators;
    for (State& s : beam) scorer.score(s, cell);

    // Lines 9-16, one candidate sub-graph after another, by depth.
    for (const Stretch& stretch : list_candidate_stretches(bg, cells[static_cast<size_t>(chosen)], bottlenecks,
                                                           options.ends_per_side)) {
      std::vector<State> next = beam;  // the dummy scheme: a state may leave this sub-graph whole
      for (const State& state : beam) {
        for (const Variant& variant : list_variants(state, stretch)) {
          for (const SchemeFacts* facts : scorer.generate(variant.stretch)) {
            std::optional<State> replaced = replace_schemes(state, variant.replaced, facts->scheme);
            if (!replaced) continue;
            State grown = std::move(*replaced);
            scorer.score(grown, cell);
            note_fit(grown);
            next.push_back(std::move(grown));
          }
        }
        if (options.deadline.expired()) {
          result.stopped_early = true;
          break;
        }
      }
      // Keep the beam_width smallest distinct states.
      std::stable_sort(next.begin(), next.end(), less);
      beam.clear();
      std::set<std::vector<SchemeKey>> kept;
      for (State& s : next) {
        if (static_cast<int>(beam.size()) == options.beam_width) break;
        if (kept.insert(key_of(s)).second) beam.push_back(std::move(s));
      }
      if (result.stopped_early) break;
    }
    const int64_t peak = std::min_element(beam.begin(), beam.end(), less)->peak;
    if (peak < best_peak) {
      best_peak = peak;
      std::fill(tried.begin(), tried.end(), false);
    }
    if (options.progress) options.progress(static_cast<double>(result.iterations) / max_iterations);
  }

  // Refinement: two loops of the best state merged into one (with what lies
  // between them), so that the tensor the first hands to the second is never
  // whole. The beam reaches such a merge only one cell at a time, and a
  // step that does not lower the peak by itself may leave the beam (a loop
  // carried through a residual block still ends on a whole tensor); merges
  // are tried until none is better by LessThen.
  State best = *std::min_element(beam.begin(), beam.end(), less);
  scorer.score(best, {});  // no cell's own peak from here on
  int merges = 0;
  for (bool merged = true; merged && !options.deadline.expired();) {
    merged = false;
    State better = best;
    for (size_t i = 0; i + 1 < best.schemes.size(); ++i) {
      const Stretch stretch{best.schemes[i].operators.front(), best.schemes[i + 1].operators.back()};
      for (const SchemeFacts* facts : scorer.generate(stretch)) {
        std::optional<State> replaced = replace_schemes(best, {i, i + 1}, facts->scheme);
        if (!replaced) continue;
        State grown = std::move(*replaced);
        scorer.score(grown, {});
        note_fit(grown);
        if (less(grown, better)) better = std::move(grown);
      }
    }
    if (less(better, best)) {
      best = std::move(better);
      merged = true;
      ++merges;
    }
  }

  // Long loops: stretches of whole cells holding every reader of a
  // bottleneck tensor (bottleneck_spans.h), each merged with the schemes it
  // overlaps, scored whole; the best replaces the state while it is better
  // by LessThen, and the next round looks at the new peak.
  int spans = 0;
  for (int round = 0; round < kSpanRounds && !options.deadline.expired(); ++round) {
    State better = best;
    for (const Stretch& span : list_bottleneck_spans(bg, cells, scorer.find_bottlenecks(best), kSpanExtraCells)) {
      for (const Variant& variant : list_variants(best, span)) {
        for (const SchemeFacts* facts : scorer.generate(variant.stretch)) {
          std::optional<State> replaced = replace_schemes(best, variant.replaced, facts->scheme);
          if (!replaced) continue;
          State grown = std::move(*replaced);
          scorer.score(grown, {});
          note_fit(grown);
          if (less(grown, better)) better = std::move(grown);
        }
      }
      if (options.deadline.expired()) break;
    }
    if (!less(better, best)) break;
    best = std::move(better);
    ++spans;
  }

  const State& chosen = fastest_fitting ? *fastest_fitting : best;
  result.schemes = chosen.schemes;
  result.peak_bytes = chosen.peak;
  result.latency = chosen.latency;
  result.states_scored = scorer.scored();
  // Loops that run on through a global pool, accumulating it.
  const auto pooled = std::count_if(result.schemes.begin(), result.schemes.end(), [&](const PartitionScheme& s) {
    return s.axis == PartitionAxis::kRows && ends_in_accumulated_pool(graph, bg, s.operators);
  });
  result.note = std::to_string(result.iterations) + " cells searched, " + std::to_string(result.states_scored) +
                " states scored, " + std::to_string(result.schemes.size()) + " row or token loops" +
                (pooled > 0 ? " (" + std::to_string(pooled) + " through a global pool)" : "") + ", scored peak " +
                std::to_string(result.peak_bytes) + " bytes" +
                (merges > 0 ? " (" + std::to_string(merges) + " merged after the beam)" : "") +
                (spans > 0 ? " (" + std::to_string(spans) + " grown over a bottleneck's cells)" : "") +
                (result.stopped_early ? " (stopped by the time limit)" : "") +
                (fastest_fitting ? "; the fastest state within the memory budget" : "");
  return result;
}

}  // namespace tinyfit::partition
