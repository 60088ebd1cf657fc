#include "driver/compile_choice.h"

#include <cmath>
#include <limits>
#include <tuple>

#include "support/diag.h"

namespace tinyfit::driver {
namespace {

double predicted_or_worst(const CompileCandidate& c) {
  return c.predicted_instructions.value_or(std::numeric_limits<double>::infinity());
}

auto latency_key(const CompileCandidate& c) {
  // A fused overlap call does the work of several calls, in slower kernels:
  // its fewer calls say nothing about its latency, so among equal
  // predictions (or none) it comes last.
  return std::make_tuple(predicted_or_worst(c), c.rank == LatencyRank::kOverlap, c.kernel_calls,
                         static_cast<int>(c.rank), c.arena_bytes);
}

auto memory_key(const CompileCandidate& c) {
  return std::make_tuple(c.arena_bytes, predicted_or_worst(c), c.kernel_calls, static_cast<int>(c.rank));
}

std::optional<size_t> choose_smallest(std::span<const CompileCandidate> candidates, double latency_budget) {
  std::optional<size_t> best;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const CompileCandidate& c = candidates[i];
    if (!c.built || !within_latency_budget(candidates, c, latency_budget)) continue;
    if (!best || memory_key(c) < memory_key(candidates[*best])) best = i;
  }
  return best;
}

}  // namespace

bool within_latency_budget(std::span<const CompileCandidate> candidates, const CompileCandidate& candidate,
                           double latency_budget) {
  if (std::isinf(latency_budget) || candidates.empty()) return true;
  const std::optional<double>& ordinary = candidates.front().predicted_instructions;
  if (!ordinary) return true;
  // A relative slack of 1e-9 so that a plan the search admitted at exactly δ
  // is not turned away by the rounding of a different sum.
  return candidate.predicted_instructions &&
         *candidate.predicted_instructions <= *ordinary * latency_budget * (1.0 + 1e-9);
}

std::optional<size_t> choose_candidate(std::span<const CompileCandidate> candidates,
                                       std::optional<int64_t> sram_bytes, double latency_budget) {
  if (!sram_bytes) {  // under a budget below 1 even the ordinary plan is over: the smallest of all
    const std::optional<size_t> within = choose_smallest(candidates, latency_budget);
    return within ? within : choose_smallest(candidates, std::numeric_limits<double>::infinity());
  }
  std::optional<size_t> best;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const CompileCandidate& c = candidates[i];
    if (!c.built || !fits_budget(c, *sram_bytes)) continue;
    if (!best) {
      best = i;
      continue;
    }
    if (latency_key(c) < latency_key(candidates[*best])) best = i;
  }
  return best;
}

size_t find_smallest_candidate(std::span<const CompileCandidate> candidates) {
  const std::optional<size_t> smallest = choose_smallest(candidates, std::numeric_limits<double>::infinity());
  TINYFIT_CHECK(smallest.has_value()) << "no candidate plan was built";
  return *smallest;
}

}  // namespace tinyfit::driver
