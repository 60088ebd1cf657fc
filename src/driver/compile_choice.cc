#include "driver/compile_choice.h"

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

}  // namespace

std::optional<size_t> choose_candidate(std::span<const CompileCandidate> candidates,
                                       std::optional<int64_t> sram_bytes) {
  std::optional<size_t> best;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const CompileCandidate& c = candidates[i];
    if (!c.built || (sram_bytes && !fits_budget(c, *sram_bytes))) continue;
    if (!best) {
      best = i;
      continue;
    }
    const CompileCandidate& b = candidates[*best];
    const bool better = sram_bytes ? latency_key(c) < latency_key(b) : memory_key(c) < memory_key(b);
    if (better) best = i;
  }
  return best;
}

size_t find_smallest_candidate(std::span<const CompileCandidate> candidates) {
  const std::optional<size_t> smallest = choose_candidate(candidates, std::nullopt);
  TINYFIT_CHECK(smallest.has_value()) << "no candidate plan was built";
  return *smallest;
}

}  // namespace tinyfit::driver
