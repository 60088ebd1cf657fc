#include "plan/place_best.h"

#include "plan/place_best_fit.h"
#include "plan/place_exact.h"
#include "plan/place_greedy_by_conflicts.h"
#include "plan/place_greedy_by_size.h"
#include "plan/place_hill_climb.h"
#include "plan/place_sweep_search.h"

namespace tinyfit::plan {

Placement place_best(std::span<const PlacementBuffer> buffers, const PlacementOptions& options) {
  Placement best = place_greedy_by_size(buffers, options);
  for (PlaceFunction place : {place_greedy_by_conflicts, place_best_fit, place_hill_climb}) {
    Placement candidate = place(buffers, options);
    if (candidate.arena_bytes < best.arena_bytes) best = std::move(candidate);
  }
  std::string sweep_note;
  Placement sweep = place_sweep_search_from(buffers, best, options);
  if (sweep.arena_bytes < best.arena_bytes) {
    best = std::move(sweep);
  } else {
    sweep_note = sweep.note;
  }
  Placement exact = place_exact_from(buffers, best, options);
  if (exact.arena_bytes < best.arena_bytes) return exact;
  // A tie keeps the heuristic's name; the exact run still tells whether it is optimal.
  best.proven_optimal = exact.proven_optimal;
  best.note = exact.note + (sweep_note.empty() ? "" : "; " + sweep_note);
  return best;
}

}  // namespace tinyfit::plan
