// One candidate plan of `tinyfit compile`: a set of techniques, the placed
// plan it produced (or why it could not be built yet) and its figures, and
// the builders the pipeline calls, one per kind of candidate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/inplace.h"
#include "analysis/memory_profile.h"
#include "driver/compile_options.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "plan/plan_memory.h"
#include "support/diag.h"

namespace tinyfit::driver {

// Latency overhead grows in this order (ties among equal kernel-call counts
// are broken by it): ordinary execution, a different operator order (same
// calls), in-place execution (same calls, line buffers for depthwise), partial
// execution (more calls: one per loop iteration), row loops (more calls and
// BlockConcat copies), segment-level overlap (fewer calls, but the
// overlap-tolerant kernels are portable C while the others have DSP fast
// paths: 1.30-1.96x ordinary's instructions on the Cortex-M4,
// docs/benchmarks/overlap.md).
enum class LatencyRank : int { kOrdinary = 0, kOrder = 1, kInplace = 2, kPex = 3, kMotes = 4, kOverlap = 5 };

struct CompileCandidate {
  std::string name;                     // "ordinary", "order:best", "order:best+inplace", "pex"
  std::vector<std::string> techniques;  // DESIGN.md `techniques`: empty for ordinary
  LatencyRank rank = LatencyRank::kOrdinary;
  bool built = false;       // false: a technique not built yet (note says which)
  std::string note;         // the search's note, or why it was skipped
  plan::Plan plan;          // placed (arena_bytes set) when built
  plan::PlanMemory memory;  // compute_plan_memory(plan)
  int64_t peak_bytes = 0;
  int64_t arena_bytes = 0;
  int64_t macs = 0;          // plan::count_plan_macs
  int64_t kernel_calls = 0;  // per inference, loop bodies once per iteration
  int loops = 0;             // Loop steps in the plan
  // One inference's retired instructions on options.target, predicted by the
  // latency model (cost/); nullopt when a call could not be bound or the
  // table lacks a kernel the plan calls (its note says why).
  std::optional<double> predicted_instructions;
  std::vector<std::string> unmeasured_kernels;  // kernels the plan calls that the table lacks
  std::string placement;     // the placement algorithm that produced the arena
};

// Lowers one operator order, with the in-place merges `inplace_choices`
// (analysis/inplace.h; empty: ordinary execution), then places it; when the
// arena stays above the peak, also with only the merges the peak needs
// (analysis::keep_choices_the_peak_needs), keeping the smaller arena.
// `order` is an order of `bg` == build_buffer_graph(graph) (in-place merges
// keep operator indices) found by the algorithm `order_name`; an empty name
// is the model's own order. Named "ordinary", "inplace", "order:NAME" or
// "order:NAME+inplace". Requires: options.placement a known algorithm name;
// the choices allowed by the order (as an order search returns them).
Result<CompileCandidate> build_operator_candidate(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                                  const analysis::Order& order, const std::string& order_name,
                                                  const analysis::InplaceChoices& inplace_choices,
                                                  const CompileOptions& options);

// Partial execution (composed with in-place merges when `inplace`), placed;
// named by the techniques the built plan reports ("pex", "pex+inplace").
// With options.sram_bytes, PEX picks per loop the largest tile that fits.
// A PEX scheduler that is not built yet (exit 2) gives a candidate with
// built == false and its message as the note, never an error.
Result<CompileCandidate> build_pex_candidate(const ir::Graph& graph, bool inplace, const CompileOptions& options);

// MOTES (issue 11 §5): row loops chosen by the bottleneck-guided beam search
// (partition/motes_search.h) within options.latency_budget, starting from
// `base_order` (an order of bg), lowered by plan/lower_motes.h with the
// fine-grained graph ordered by options.order (and in-place merges outside
// the loops when options.techniques.inplace), then placed. Named "motes" or
// "motes+inplace"; its note says what the search did. The search prices
// states with the latency model (driver/motes_latency.h); under a finite
// budget δ the built plan's predicted instructions are at most δ x
// `ordinary_instructions` (the ordinary candidate's prediction): a plan
// beyond it sends the search back with a tighter limit, and when none fits
// (or the ordinary plan was not predicted) the candidate is not built and its
// note says why.
Result<CompileCandidate> build_motes_candidate(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                               const analysis::Order& base_order,
                                               std::optional<double> ordinary_instructions,
                                               const CompileOptions& options);

// Segment-level overlap (plan/lower_overlap.h) on a built candidate's plan,
// placed again; named "<base>+overlap". Lowered with every block fused and
// every overlap, with unfused calls overlapped only where the peak needs it
// (OverlapOptions::only_where_the_peak_needs_it), with blocks fused only
// where the peak needs it too (fuse_only_where_the_peak_needs_it) and, under
// options.sram_bytes, only where the budget needs it; of these, the fastest
// predicted that fits the budget, or without one the smallest arena (the
// fewest predicted instructions on a tie). Without --sram, when that plan is
// predicted over options.latency_budget times `ordinary_instructions` (the
// ordinary candidate's prediction), fused blocks are left unfused until it
// is within (the fewest bytes gained per instruction saved first), if any
// such plan still fuses or overlaps something. nullopt when nothing could be
// fused or overlapped (the plan would be the base's).
Result<std::optional<CompileCandidate>> build_overlap_candidate(const ir::Graph& graph, const CompileCandidate& base,
                                                                std::optional<double> ordinary_instructions,
                                                                const CompileOptions& options);

// True when the candidate was built and its arena fits `sram_bytes`.
bool fits_budget(const CompileCandidate& candidate, int64_t sram_bytes);

}  // namespace tinyfit::driver
