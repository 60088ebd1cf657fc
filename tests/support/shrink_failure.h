// Halide-style shrinking of a failing random case: apply each move (a smaller
// size field) while the case still fails, until no move keeps it failing.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tinyfit::testing {

// What: the smallest spec reachable from `spec` by `moves` for which `check`
// still reports a failure; `failure` becomes that spec's failure.
// Requires: check(spec) fails; each move returns false when it cannot shrink
// its field further (so the search ends).
template <class Spec>
Spec shrink_failure(Spec spec, std::string& failure, const std::vector<std::function<bool(Spec&)>>& moves,
                    const std::function<std::string(const Spec&)>& check) {
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto& move : moves) {
      Spec smaller = spec;
      if (!move(smaller)) continue;
      std::string smaller_failure = check(smaller);
      if (smaller_failure.empty()) continue;
      spec = std::move(smaller);
      failure = std::move(smaller_failure);
      progress = true;
    }
  }
  return spec;
}

}  // namespace tinyfit::testing
