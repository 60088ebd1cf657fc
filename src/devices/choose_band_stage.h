// choose-band-stages: where --partition rows cuts the tail again
// (driver/compile_device_rows.h). After a stage of bands, device 0 holds the
// boundary whole; the tail's operators can run by bands again, stage after
// stage (device 0 scatters each device its rows, halo included, and gathers
// their shares back), the rest whole on device 0. A stage over the tail's
// operators [begin, end) is estimated from the band graphs crop_rows makes
// (MACs, halos included, which grow with the stage's length) and its link
// bytes, before anything is compiled:
//   seconds(stage) = slowest band's MACs x seconds per MAC
//                    + (scattered + gathered bytes) / link rate
// and an operator run whole on device 0 costs its MACs x seconds per MAC.
// A dynamic program over the cut positions picks the sequence of stages
// (then the rest whole) with the fewest predicted seconds, the rest whole
// starting no earlier than a given operator (a tail that fits device 0 only
// once its first operators ran by bands). Plain records in, the chosen
// stages out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tinyfit::devices {

struct BandStageEstimate {
  int begin = 0;                        // the tail's operators [begin, end) by bands
  int end = 0;
  std::vector<int64_t> band_macs;       // per device, its band graph's MACs
  int64_t link_bytes = 0;               // scattered to devices 1.. and gathered from them
  int head_nodes = 0;                   // the stage's cut in its own graph: end - begin, plus the
                                        // operators before begin it recomputes (recompute-boundary)
};

struct StageRates {
  double seconds_per_mac = 0;           // > 0
  double link_bytes_per_second = 0;     // 0: the link costs nothing
};

// The stage's predicted seconds (the formula above).
double estimate_stage_seconds(const BandStageEstimate& stage, const StageRates& rates);

// What: indices into `stages` of consecutive stages from operator 0
// (stages[i].end == stages[i + 1].begin), the operators after the last one
// whole on device 0, that last end at or after `first_whole`, with the
// fewest predicted seconds over every such sequence (with first_whole 0 the
// empty sequence, the tail whole, included); among equals the fewer stages,
// then the first in `stages`' order; nullopt when no sequence of `stages`
// reaches first_whole. O(nodes x stages).
// Requires: node_macs one per tail operator; every stage 0 <= begin < end <= node_macs.size();
// first_whole <= node_macs.size().
std::optional<std::vector<size_t>> choose_band_stages(const std::vector<int64_t>& node_macs,
                                                      const std::vector<BandStageEstimate>& stages,
                                                      const StageRates& rates, size_t first_whole);

}  // namespace tinyfit::devices
