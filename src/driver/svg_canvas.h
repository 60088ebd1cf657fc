// The canvas both SVG charts draw on (memory_timeline_svg.h, pareto_svg.h):
// its size, the title's font size, and how a coordinate is written.
#pragma once

#include <cstdio>
#include <string>

namespace tinyfit::driver {

inline constexpr double kSvgWidth = 960;
inline constexpr double kSvgHeight = 540;
inline constexpr double kSvgTitleFontSize = 17;

// A coordinate with two decimals: compact and deterministic.
inline std::string svg_coord(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", v);
  return buffer;
}

}  // namespace tinyfit::driver
