// `tinyfit compile --svg FILE`: one chart of live bytes per plan position for
// several plans (the ordinary baseline and the chosen plan), with the --sram
// budget line and each plan's bottleneck marked. The first thing an engineer
// looks at, so it favours legibility: KiB on the y axis with round ticks, a
// legend with each plan's peak, labels that stay inside the chart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tinyfit::driver {

// The positions of a plan's loop (plan_memory.h LoopSpan): a loop body's
// positions are counted once, so the chart shows where each loop runs.
struct TimelineLoop {
  int first_position = 0;  // inclusive
  int last_position = 0;   // inclusive
  int depth = 0;           // 0: a step of the plan; nested loops draw inside it
  std::string label;       // "rows-0: 56 x 2 rows"
};

struct TimelineSeries {
  std::string label;                // "ordinary", "chosen: order:best+inplace"
  std::vector<int64_t> live_bytes;  // per position (plan_memory.h PlanMemory::live_bytes)
  int peak_position = 0;            // where the bottleneck is marked
  std::string peak_label;           // "conv3 (Conv2D)": the call at the peak
  std::string color;                // CSS colour of the line
  std::vector<TimelineLoop> loops;  // drawn as bands behind the lines, for the last series
};

struct TimelineChart {
  std::string title;    // shortened in the middle ("…") when it would not fit the width
  std::string tooltip;  // the title's tooltip (<title>): the full model path; empty: the title
  std::vector<TimelineSeries> series;  // drawn in order, later ones on top
  std::optional<int64_t> budget_bytes;
};

// What: a standalone SVG document (960x540 user units): live memory as step
// lines over positions 0..n-1 (x: "plan step"), y from 0 in KiB (bytes when
// everything is below 1 KiB) with 1/2/5 ticks, the budget as a dashed red line, each series' peak as a dot with its
// value and call, the last series' loops as shaded bands (deeper ones darker)
// labelled at their top. Text is XML-escaped.
// Guarantees: deterministic output; empty series draw nothing but the axes;
// the title fits the chart's width (fit_text_to_width) and carries its
// tooltip.
std::string render_memory_timeline_svg(const TimelineChart& chart);

// The widest `text` may be in a font of `font_size` px, bold: DejaVu Sans
// Bold's advances (the first and widest of the fonts the chart asks for)
// rounded up: 1.1 em for upper case, 'm', 'w' and any non-ASCII character,
// 0.72 em for every other glyph (its digits are 0.70 em).
double estimate_bold_text_width(std::string_view text, double font_size);

// `text` itself when its estimated width is at most `width`; otherwise its
// beginning and end around "…", as long as fits. Never splits a UTF-8
// character.
std::string fit_text_to_width(const std::string& text, double width, double font_size);

// Text for an SVG document: names from model files may hold control bytes
// (not even allowed in XML), so they are escaped first (escape_for_display),
// then XML's own characters.
std::string escape_xml(const std::string& text);

// "1,470.0 KiB" style: one decimal from 10 KiB up, two below, thousands
// separated; below 1 KiB plain bytes ("512 bytes").
std::string format_kib(int64_t bytes);

}  // namespace tinyfit::driver
