#include "devices/choose_band_stage.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace tinyfit::devices {

double estimate_stage_seconds(const BandStageEstimate& stage, const StageRates& rates) {
  const int64_t slowest =
      stage.band_macs.empty() ? 0 : *std::max_element(stage.band_macs.begin(), stage.band_macs.end());
  const double link =
      rates.link_bytes_per_second > 0 ? static_cast<double>(stage.link_bytes) / rates.link_bytes_per_second : 0.0;
  return static_cast<double>(slowest) * rates.seconds_per_mac + link;
}

std::optional<std::vector<size_t>> choose_band_stages(const std::vector<int64_t>& node_macs,
                                                      const std::vector<BandStageEstimate>& stages,
                                                      const StageRates& rates, size_t first_whole) {
  const size_t n = node_macs.size();
  constexpr double kUnreachable = std::numeric_limits<double>::infinity();
  // best[p]: the fewest seconds from operator p on (device 0 holding its
  // inputs whole; infinity: no sequence from p reaches first_whole), its
  // stage count, and the stage it starts with (none: the rest whole).
  std::vector<double> best(n + 1, 0.0);
  std::vector<int> count(n + 1, 0);
  std::vector<std::optional<size_t>> first(n + 1);
  double whole = 0.0;
  for (size_t p = n; p-- > 0;) {
    whole += static_cast<double>(node_macs[p]) * rates.seconds_per_mac;
    best[p] = p >= first_whole ? whole : kUnreachable;
    for (size_t i = 0; i < stages.size(); ++i) {
      if (static_cast<size_t>(stages[i].begin) != p) continue;
      const size_t end = static_cast<size_t>(stages[i].end);
      if (best[end] == kUnreachable) continue;
      const double seconds = estimate_stage_seconds(stages[i], rates) + best[end];
      const int stage_count = 1 + count[end];
      const bool better = seconds < best[p] || (seconds == best[p] && first[p] && stage_count < count[p]);
      if (better) {
        best[p] = seconds;
        count[p] = stage_count;
        first[p] = i;
      }
    }
  }
  if (best[0] == kUnreachable) return std::nullopt;
  std::vector<size_t> chosen;
  for (std::optional<size_t> i = first[0]; i; i = first[static_cast<size_t>(stages[*i].end)]) chosen.push_back(*i);
  return chosen;
}

}  // namespace tinyfit::devices
