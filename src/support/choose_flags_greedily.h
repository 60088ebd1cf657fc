// A greedy search over n on/off flags for the smallest cost. The row-loop
// lowering and the search's row geometry both choose with it which loop
// operators run ahead of their readers (eager), so the search scores the
// loop buffers the lowering builds.
//
// From all off, each flag but the last is turned on, from the first to the
// last but one, and kept on when the cost falls; from all on, each is turned
// off, from the last but one to the first, likewise. The better of the two
// results wins (the first on a tie). The last flag keeps its start value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "support/diag.h"

namespace tinyfit {

struct FlagChoice {
  std::vector<bool> flags;
  int64_t cost = 0;
};

// cost: (const std::vector<bool>& flags) -> Result<int64_t>, called O(n) times.
template <class Cost>
Result<FlagChoice> choose_flags_greedily(size_t n, Cost&& cost) {
  FlagChoice best;
  bool found = false;
  for (const bool start_on : {false, true}) {
    std::vector<bool> flags(n, start_on);
    TINYFIT_ASSIGN_OR_RETURN(int64_t lowest, cost(flags));
    for (size_t k = 0; k + 1 < n; ++k) {
      const size_t j = start_on ? n - 2 - k : k;
      flags[j] = !flags[j];
      TINYFIT_ASSIGN_OR_RETURN(const int64_t toggled, cost(flags));
      if (toggled < lowest) {
        lowest = toggled;
      } else {
        flags[j] = !flags[j];
      }
    }
    if (!found || lowest < best.cost) {
      best = {std::move(flags), lowest};
      found = true;
    }
  }
  return best;
}

}  // namespace tinyfit
