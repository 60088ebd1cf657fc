// Which candidate plan `tinyfit compile` keeps (the "choose" pass).
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "driver/compile_candidate.h"

namespace tinyfit::driver {

// Whether `candidate`'s predicted instructions are at most `latency_budget`
// (δ) times the ordinary plan's (candidates[0]). Always true under
// kNoLatencyBudget or when the ordinary plan has no prediction (nothing to
// compare with); false for a candidate without a prediction otherwise.
bool within_latency_budget(std::span<const CompileCandidate> candidates, const CompileCandidate& candidate,
                           double latency_budget);

// What: the index of the chosen candidate among the built ones.
//  - No --sram: the smallest arena among the candidates within the latency
//    budget (within_latency_budget; the ordinary plan always is), so that a
//    user who names no budget never gets a plan more than δ slower; ties go
//    to the least predicted latency.
//  - A budget: among the candidates whose arena fits it, the least predicted
//    latency (cost/: instructions of one inference on the compile target; a
//    candidate without a prediction comes after every one with), then plans
//    without segment-level overlap (its fused calls are fewer but slower),
//    then fewer kernel calls, then LatencyRank (ordinary before orders before
//    in-place before pex), then the smaller arena.
//  Remaining ties go to the earlier candidate.
// Guarantees: nullopt only when no built candidate fits the budget (or none
// was built). Pure: reads only the figures, never the plans.
std::optional<size_t> choose_candidate(std::span<const CompileCandidate> candidates,
                                       std::optional<int64_t> sram_bytes, double latency_budget);

// The candidate a "does not fit" report describes: the smallest arena,
// whatever its latency (ties: the least predicted latency, then the earlier).
// Requires: at least one built candidate.
size_t find_smallest_candidate(std::span<const CompileCandidate> candidates);

}  // namespace tinyfit::driver
