#include "driver/pareto_svg.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "driver/memory_timeline_svg.h"
#include "driver/svg_canvas.h"

namespace tinyfit::driver {
namespace {

// The plot area inside the canvas (svg_canvas.h).
constexpr double kPlotLeft = 110, kPlotRight = 930, kPlotTop = 70, kPlotBottom = 470;

std::string format_millions(double instructions) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f M", instructions / 1e6);
  return buffer;
}

}  // namespace

std::string render_pareto_svg(const ParetoReport& report) {
  std::ostringstream svg;
  const std::string title = "Pareto frontier: " + std::filesystem::path(report.model).filename().string() +
                            " (" + report.target + ", predicted)";
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kSvgWidth << "\" height=\"" << kSvgHeight
      << "\" viewBox=\"0 0 " << kSvgWidth << " " << kSvgHeight << "\" font-family=\"DejaVu Sans, sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << svg_coord(kPlotLeft) << "\" y=\"36\" font-size=\"" << kSvgTitleFontSize
      << "\" font-weight=\"bold\"><title>" << escape_xml(report.model) << "</title>"
      << escape_xml(fit_text_to_width(title, kPlotRight - kPlotLeft, kSvgTitleFontSize)) << "</text>\n"
      << "<line x1=\"" << kPlotLeft << "\" y1=\"" << kPlotBottom << "\" x2=\"" << kPlotRight << "\" y2=\""
      << kPlotBottom << "\" stroke=\"black\"/>\n"
      << "<line x1=\"" << kPlotLeft << "\" y1=\"" << kPlotTop << "\" x2=\"" << kPlotLeft << "\" y2=\"" << kPlotBottom
      << "\" stroke=\"black\"/>\n"
      << "<text x=\"" << svg_coord((kPlotLeft + kPlotRight) / 2)
      << "\" y=\"510\" text-anchor=\"middle\" font-size=\"13\">"
      << "arena</text>\n"
      << "<text x=\"24\" y=\"" << svg_coord((kPlotTop + kPlotBottom) / 2)
      << "\" text-anchor=\"middle\" font-size=\"13\" "
      << "transform=\"rotate(-90 24 " << svg_coord((kPlotTop + kPlotBottom) / 2)
      << ")\">instructions per inference</text>\n";
  if (!report.frontier.empty()) {
    // Both axes from zero: the trade-off reads as a share of the whole.
    int64_t max_arena = 0;
    double max_instructions = 0;
    for (const ParetoPoint& p : report.frontier) {
      max_arena = std::max(max_arena, p.arena_bytes);
      max_instructions = std::max(max_instructions, p.predicted_instructions);
    }
    const auto x = [&](int64_t bytes) {
      const double share = static_cast<double>(bytes) / static_cast<double>(std::max<int64_t>(1, max_arena));
      return kPlotLeft + (kPlotRight - kPlotLeft) * 0.95 * share;
    };
    const auto y = [&](double instructions) {
      return kPlotBottom - (kPlotBottom - kPlotTop) * 0.95 * instructions / std::max(1.0, max_instructions);
    };
    // Fastest first (arenas decrease, instructions increase); an arena
    // between two points affords only the smaller one, hence the staircase.
    const ParetoPoint& fastest = report.frontier.front();
    std::string path = "M" + svg_coord(x(fastest.arena_bytes)) + " " + svg_coord(y(fastest.predicted_instructions));
    for (size_t i = 1; i < report.frontier.size(); ++i) {
      const ParetoPoint& p = report.frontier[i];
      path += " V" + svg_coord(y(p.predicted_instructions)) + " H" + svg_coord(x(p.arena_bytes));
    }
    svg << "<path d=\"" << path << "\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n";
    for (size_t i = 0; i < report.frontier.size(); ++i) {
      const ParetoPoint& p = report.frontier[i];
      const std::string label = p.plan + ", " + std::to_string(p.workspaces) + "/" + std::to_string(p.sites) +
                                " workspaces: " + format_kib(p.arena_bytes) + ", " +
                                format_millions(p.predicted_instructions);
      svg << "<circle cx=\"" << svg_coord(x(p.arena_bytes)) << "\" cy=\"" << svg_coord(y(p.predicted_instructions))
          << "\" r=\"4\" fill=\"#1f77b4\"><title>" << escape_xml(label) << "</title></circle>\n";
      // Labels of the two ends only: the middle ones are in the tooltips and the table.
      if (i == 0 || i + 1 == report.frontier.size()) {
        svg << "<text x=\"" << svg_coord(std::min(x(p.arena_bytes), kPlotRight - 300)) << "\" y=\""
            << svg_coord(y(p.predicted_instructions) - 10) << "\" font-size=\"12\">" << escape_xml(label)
            << "</text>\n";
      }
    }
    svg << "<text x=\"" << svg_coord(kPlotLeft - 6) << "\" y=\"" << svg_coord(y(max_instructions) + 4)
        << "\" text-anchor=\"end\" font-size=\"11\">" << format_millions(max_instructions) << "</text>\n"
        << "<text x=\"" << svg_coord(x(max_arena)) << "\" y=\"" << svg_coord(kPlotBottom + 18)
        << "\" text-anchor=\"middle\" font-size=\"11\">" << escape_xml(format_kib(max_arena)) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace tinyfit::driver
