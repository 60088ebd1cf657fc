// `tinyfit compile --svg FILE`: one chart of live bytes per plan position for
// several plans (the ordinary baseline and the chosen plan), with the --sram
// budget line and each plan's bottleneck marked. The first thing an engineer
// looks at, so it favours legibility: KiB on the y axis with round ticks, a
// legend with each plan's peak, labels that stay inside the chart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tinyfit::driver {

struct TimelineSeries {
  std::string label;                // "ordinary", "chosen: order:best+inplace"
  std::vector<int64_t> live_bytes;  // per position (plan_memory.h PlanMemory::live_bytes)
  int peak_position = 0;            // where the bottleneck is marked
  std::string peak_label;           // "conv3 (Conv2D)": the call at the peak
  std::string color;                // CSS colour of the line
};

struct TimelineChart {
  std::string title;
  std::vector<TimelineSeries> series;  // drawn in order, later ones on top
  std::optional<int64_t> budget_bytes;
};

// What: a standalone SVG document (960x540 user units): live memory as step
// lines over positions 0..n-1 (x: "plan step"), y from 0 in KiB (bytes when
// everything is below 1 KiB) with 1/2/5 ticks, the budget as a dashed red line, each series' peak as a dot with its
// value and call. Text is XML-escaped.
// Guarantees: deterministic output; empty series draw nothing but the axes.
std::string render_memory_timeline_svg(const TimelineChart& chart);

// "1,470.0 KiB" style: one decimal from 10 KiB up, two below, thousands
// separated; below 1 KiB plain bytes ("512 bytes").
std::string format_kib(int64_t bytes);

}  // namespace tinyfit::driver
