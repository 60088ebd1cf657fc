// `tinyfit compile`: the pipeline from a verified graph to a verified (and
// optionally emitted) plan. compile_pipeline.cc is the table of contents:
// every pass in order with the reason it is there (STYLE.md rule 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/compile_candidate.h"
#include "driver/compile_options.h"
#include "driver/compile_verify.h"
#include "driver/memory_report.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct CompileReport {
  std::string model;
  std::optional<int64_t> sram_bytes;
  double latency_budget = 1.05;  // options.latency_budget: bounds the choice without --sram
  // Every candidate tried, in the order built; [0] is the ordinary plan.
  std::vector<CompileCandidate> candidates;
  std::optional<size_t> chosen;  // nullopt: nothing fits --sram (exit 3)
  // The chosen candidate, or the smallest one when nothing fits.
  size_t reported = 0;
  Bottleneck bottleneck;         // of the reported candidate, at its peak position
  std::vector<std::string> schedule;  // input-model node names of the reported plan, each once
  int64_t flash_bytes = 0;       // the graph's constants (ir::Graph::flash_bytes)
  std::optional<int64_t> flash_budget;  // options.flash_bytes
  // With --flash: the chosen program's const arrays in model.c
  // (widen_weights.h count_const_data_bytes), widened weights included.
  std::optional<int64_t> const_data_bytes;
  std::string flash_note;        // with --flash: what widening did
  Verification verification;
  int accumulator_bits = 32;
  std::string target;            // the cost table predicted latencies come from
  std::string emitted_dir;                 // options.emit_dir when C was emitted
  std::vector<std::string> emitted_files;  // relative to emitted_dir
  std::string emitted_prefix;              // C symbol prefix and CMake library target: "tinyfit_kws"
  double compile_seconds = 0;

  const CompileCandidate& ordinary() const { return candidates.front(); }
  const CompileCandidate& result() const { return candidates.at(reported); }
  bool fits() const { return chosen.has_value(); }
  // Plan MACs / ordinary MACs: 1.0 means no recomputation.
  double macs_ratio() const;
};

// What: builds the candidates the options allow, places them, chooses one,
// verifies it (structure always; by execution unless options.execute is
// false) and emits C when options.emit_dir is set.
// Requires: graph passed verify_graph; options.order and options.placement
// are known algorithm names (tools/ validated them).
// Guarantees: a report with fits() == false when no candidate fits the
// budget (nothing verified or emitted then); otherwise the chosen plan passed
// verify_plan, and verification.verified is true only if it was executed and
// matched the reference. Errors: a kernel or emitter not built yet (exit 2),
// a bad input dtype (exit 1), internal errors as InternalError.
Result<CompileReport> compile_model(const ir::Graph& graph, const CompileOptions& options);

// The one-line "does not fit" message: budget, the smallest plan's arena and
// techniques, the shortfall in bytes and its bottleneck (step, operator, live
// tensors). Requires: !report.fits().
std::string describe_shortfall(const CompileReport& report);

}  // namespace tinyfit::driver
