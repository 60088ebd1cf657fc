#include "driver/memory_timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <string_view>

#include "driver/svg_canvas.h"
#include "support/byte_size.h"
#include "support/display_text.h"

namespace tinyfit::driver {
namespace {

constexpr double kLeft = 96;     // room for the y tick labels and the axis title
constexpr double kRight = 930;
constexpr double kTop = 96;      // title and legend above
constexpr double kBottom = 470;  // x tick labels and the axis title below
constexpr double kKiB = 1024.0;

// `value` with `decimals` digits after the point and thousands separators.
std::string format_fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  const std::string_view text = buffer;
  const size_t sign = text[0] == '-' ? 1 : 0;
  const size_t point = std::min(text.find('.'), text.size());
  const int64_t whole = std::stoll(std::string(text.substr(sign, point - sign)));
  return std::string(text.substr(0, sign)) + format_thousands(whole) + std::string(text.substr(point));
}

// The smallest 1, 2 or 5 times a power of ten that is >= `raw` (> 0).
double round_up_to_nice(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw * (1 - 1e-9)) return m * power;
  }
  return 10 * power;
}

// The y axis counts KiB, or bytes when everything is below 1 KiB (tiny test
// models would otherwise read "0.03").
// "4.00 KiB (4,096 bytes)", or "30 bytes" below 1 KiB.
std::string describe_bytes(int64_t bytes) {
  return format_kib(bytes) + (std::abs(bytes) < 1024 ? "" : " (" + format_thousands(bytes) + " bytes)");
}

struct Scale {
  double unit_bytes = kKiB;  // bytes per y-axis unit
  double y_top = 1;          // value at the top of the plot, in units
  double y_step = 1;         // between ticks, in units
  int64_t x_count = 1;       // positions on the x axis
  double x(double position) const { return kLeft + (kRight - kLeft) * position / static_cast<double>(x_count); }
  double y(int64_t bytes) const {
    return kBottom - (kBottom - kTop) * (static_cast<double>(bytes) / unit_bytes) / y_top;
  }
};

Scale make_scale(const TimelineChart& chart) {
  int64_t max_bytes = chart.budget_bytes.value_or(0);
  Scale s;
  for (const TimelineSeries& series : chart.series) {
    for (int64_t b : series.live_bytes) max_bytes = std::max(max_bytes, b);
    s.x_count = std::max<int64_t>(s.x_count, static_cast<int64_t>(series.live_bytes.size()));
  }
  s.unit_bytes = max_bytes >= kKiB ? kKiB : 1.0;
  const double max_units = std::max(static_cast<double>(max_bytes) / s.unit_bytes, 1.0);
  s.y_step = round_up_to_nice(max_units * 1.08 / 6);  // about six ticks, 8% headroom
  if (s.unit_bytes == 1.0) s.y_step = std::max(1.0, std::round(s.y_step));  // whole bytes
  s.y_top = std::ceil(max_units * 1.08 / s.y_step) * s.y_step;
  return s;
}

void draw_axes(std::ostringstream& svg, const Scale& s) {
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(s.y_step) + 1e-9)));
  const int ticks = static_cast<int>(std::lround(s.y_top / s.y_step));
  for (int i = 0; i <= ticks; ++i) {
    const double value = i * s.y_step;
    const double y = kBottom - (kBottom - kTop) * value / s.y_top;
    svg << "<line x1=\"" << svg_coord(kLeft) << "\" y1=\"" << svg_coord(y) << "\" x2=\"" << svg_coord(kRight)
        << "\" y2=\"" << svg_coord(y) << "\" stroke=\"#e3e3e3\"/>\n"
        << "<text x=\"" << svg_coord(kLeft - 8) << "\" y=\"" << svg_coord(y + 4) << "\" text-anchor=\"end\">"
        << format_fixed(value, decimals) << "</text>\n";
  }
  const int64_t x_step = static_cast<int64_t>(round_up_to_nice(std::max(1.0, static_cast<double>(s.x_count) / 12)));
  for (int64_t p = 0; p < s.x_count; p += x_step) {
    const double x = s.x(static_cast<double>(p) + 0.5);
    svg << "<line x1=\"" << svg_coord(x) << "\" y1=\"" << svg_coord(kBottom) << "\" x2=\"" << svg_coord(x) << "\" y2=\""
        << svg_coord(kBottom + 5) << "\" stroke=\"#444\"/>\n"
        << "<text x=\"" << svg_coord(x) << "\" y=\"" << svg_coord(kBottom + 20) << "\" text-anchor=\"middle\">" << p
        << "</text>\n";
  }
  svg << "<line x1=\"" << svg_coord(kLeft) << "\" y1=\"" << svg_coord(kBottom) << "\" x2=\"" << svg_coord(kRight)
      << "\" y2=\"" << svg_coord(kBottom) << "\" stroke=\"#444\"/>\n"
      << "<line x1=\"" << svg_coord(kLeft) << "\" y1=\"" << svg_coord(kTop) << "\" x2=\"" << svg_coord(kLeft)
      << "\" y2=\"" << svg_coord(kBottom) << "\" stroke=\"#444\"/>\n"
      << "<text x=\"" << svg_coord((kLeft + kRight) / 2) << "\" y=\"" << svg_coord(kBottom + 46)
      << "\" text-anchor=\"middle\">plan step (kernel calls in program order; a loop body counted once)</text>\n"
      << "<text transform=\"translate(24," << svg_coord((kTop + kBottom) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">live memory (" << (s.unit_bytes == 1.0 ? "bytes" : "KiB")
      << ")</text>\n";
}

void draw_series(std::ostringstream& svg, const Scale& s, const TimelineSeries& series, bool fill) {
  if (series.live_bytes.empty()) return;
  std::ostringstream path;
  path << "M" << svg_coord(s.x(0)) << " " << svg_coord(s.y(series.live_bytes[0]));
  for (size_t p = 0; p < series.live_bytes.size(); ++p) {
    if (p > 0) path << " V" << svg_coord(s.y(series.live_bytes[p]));
    path << " H" << svg_coord(s.x(static_cast<double>(p + 1)));
  }
  if (fill) {
    svg << "<path d=\"" << path.str() << " V" << svg_coord(kBottom) << " H" << svg_coord(s.x(0)) << " Z\" fill=\""
        << series.color << "\" fill-opacity=\"0.12\" stroke=\"none\"/>\n";
  }
  svg << "<path d=\"" << path.str() << "\" fill=\"none\" stroke=\"" << series.color
      << "\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n";
}

// The bottleneck: a dotted drop line, a dot and the peak value beside it.
void draw_peak(std::ostringstream& svg, const Scale& s, const TimelineSeries& series) {
  if (series.live_bytes.empty()) return;
  const auto p = static_cast<size_t>(std::clamp<int64_t>(series.peak_position, 0,
                                                          static_cast<int64_t>(series.live_bytes.size()) - 1));
  const double x = s.x(static_cast<double>(p) + 0.5);
  const double y = s.y(series.live_bytes[p]);
  const bool right_half = x > (kLeft + kRight) / 2;
  svg << "<line x1=\"" << svg_coord(x) << "\" y1=\"" << svg_coord(y) << "\" x2=\"" << svg_coord(x) << "\" y2=\""
      << svg_coord(kBottom) << "\" stroke=\"" << series.color << "\" stroke-dasharray=\"2 3\"/>\n"
      << "<circle cx=\"" << svg_coord(x) << "\" cy=\"" << svg_coord(y) << "\" r=\"4.5\" fill=\"" << series.color
      << "\" stroke=\"white\"/>\n"
      << "<text x=\"" << svg_coord(x + (right_half ? -8 : 8)) << "\" y=\"" << svg_coord(y - 8) << "\" text-anchor=\""
      << (right_half ? "end" : "start") << "\" fill=\"" << series.color << "\" font-weight=\"bold\">"
      << escape_xml(format_kib(series.live_bytes[p])) << "</text>\n";
}

// Loops of a plan: a band over their positions, nested ones darker, each
// labelled at its top-left when the label fits the band.
void draw_loops(std::ostringstream& svg, const Scale& s, const TimelineSeries& series) {
  constexpr double kLabelFontSize = 10;
  for (const TimelineLoop& loop : series.loops) {
    const double left = s.x(loop.first_position), right = s.x(loop.last_position + 1.0);
    svg << "<rect x=\"" << svg_coord(left) << "\" y=\"" << svg_coord(kTop) << "\" width=\"" << svg_coord(right - left)
        << "\" height=\"" << svg_coord(kBottom - kTop) << "\" fill=\"" << series.color
        << "\" fill-opacity=\"0.07\"/>\n";
    const std::string label = fit_text_to_width(loop.label, right - left - 4, kLabelFontSize);
    if (label == "\u2026") continue;  // nothing readable fits, only the ellipsis
    svg << "<text x=\"" << svg_coord(left + 2) << "\" y=\"" << svg_coord(kTop + 12 + 12 * loop.depth)
        << "\" font-size=\"" << kLabelFontSize << "\" fill=\"#555\">" << escape_xml(label) << "</text>\n";
  }
}

void draw_budget(std::ostringstream& svg, const Scale& s, int64_t budget) {
  const double y = s.y(budget);
  svg << "<line x1=\"" << svg_coord(kLeft) << "\" y1=\"" << svg_coord(y) << "\" x2=\"" << svg_coord(kRight)
      << "\" y2=\"" << svg_coord(y) << "\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"8 4\"/>\n"
      << "<text x=\"" << svg_coord(kRight - 4) << "\" y=\"" << svg_coord(y - 6)
      << "\" text-anchor=\"end\" fill=\"#d62728\">--sram budget " << describe_bytes(budget) << "</text>\n";
}

void draw_legend(std::ostringstream& svg, const TimelineChart& chart) {
  double y = 54;
  for (const TimelineSeries& series : chart.series) {
    int64_t peak = 0;
    if (!series.live_bytes.empty()) {
      peak = series.live_bytes[static_cast<size_t>(std::clamp<int64_t>(
          series.peak_position, 0, static_cast<int64_t>(series.live_bytes.size()) - 1))];
    }
    svg << "<line x1=\"" << svg_coord(kLeft) << "\" y1=\"" << svg_coord(y - 4) << "\" x2=\"" << svg_coord(kLeft + 24)
        << "\" y2=\"" << svg_coord(y - 4) << "\" stroke=\"" << series.color << "\" stroke-width=\"3\"/>\n"
        << "<text x=\"" << svg_coord(kLeft + 32) << "\" y=\"" << svg_coord(y) << "\">" << escape_xml(series.label)
        << ": peak " << describe_bytes(peak) << " at step "
        << series.peak_position << (series.peak_label.empty() ? "" : ", " + escape_xml(series.peak_label))
        << "</text>\n";
    y += 18;
  }
}

// The UTF-8 characters of `text`, each as its bytes.
std::vector<std::string_view> split_utf8_characters(std::string_view text) {
  std::vector<std::string_view> characters;
  size_t begin = 0;
  for (size_t i = 1; i <= text.size(); ++i) {
    const bool continuation = i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
    if (continuation) continue;
    characters.push_back(text.substr(begin, i - begin));
    begin = i;
  }
  return characters;
}

double estimate_character_em(std::string_view character) {
  const auto c = static_cast<unsigned char>(character[0]);
  if (c >= 0x80 || std::isupper(c) || c == 'm' || c == 'w') return 1.1;
  return 0.72;
}

}  // namespace

std::string escape_xml(const std::string& text) {
  std::string out;
  for (char c : escape_for_display(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

double estimate_bold_text_width(std::string_view text, double font_size) {
  double em = 0;
  for (std::string_view character : split_utf8_characters(text)) em += estimate_character_em(character);
  return em * font_size;
}

std::string fit_text_to_width(const std::string& text, double width, double font_size) {
  if (estimate_bold_text_width(text, font_size) <= width) return text;
  static constexpr std::string_view kEllipsis = "\u2026";
  const std::vector<std::string_view> characters = split_utf8_characters(text);
  // Keep characters from both ends, alternately, while the result fits.
  double used = estimate_bold_text_width(kEllipsis, font_size);
  size_t head = 0, tail = 0;
  while (head + tail < characters.size()) {
    const bool take_head = head <= tail;
    const std::string_view next = take_head ? characters[head] : characters[characters.size() - 1 - tail];
    const double next_width = estimate_character_em(next) * font_size;
    if (used + next_width > width) break;
    used += next_width;
    (take_head ? head : tail) += 1;
  }
  std::string fitted;
  for (size_t i = 0; i < head; ++i) fitted += characters[i];
  fitted += kEllipsis;
  for (size_t i = characters.size() - tail; i < characters.size(); ++i) fitted += characters[i];
  return fitted;
}

std::string format_kib(int64_t bytes) {
  if (std::abs(bytes) < 1024) return std::to_string(bytes) + " bytes";
  const double kib = static_cast<double>(bytes) / kKiB;
  return format_fixed(kib, std::abs(kib) >= 10 ? 1 : 2) + " KiB";
}

std::string render_memory_timeline_svg(const TimelineChart& chart) {
  const Scale s = make_scale(chart);
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kSvgWidth << "\" height=\"" << kSvgHeight
      << "\" viewBox=\"0 0 " << kSvgWidth << " " << kSvgHeight
      << "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << svg_coord(kLeft) << "\" y=\"28\" font-size=\"" << kSvgTitleFontSize
      << "\" font-weight=\"bold\"><title>" << escape_xml(chart.tooltip.empty() ? chart.title : chart.tooltip)
      << "</title>" << escape_xml(fit_text_to_width(chart.title, kRight - kLeft, kSvgTitleFontSize)) << "</text>\n";
  draw_legend(svg, chart);
  if (!chart.series.empty()) draw_loops(svg, s, chart.series.back());
  draw_axes(svg, s);
  for (size_t i = 0; i < chart.series.size(); ++i) {
    draw_series(svg, s, chart.series[i], i + 1 == chart.series.size());
  }
  if (chart.budget_bytes) draw_budget(svg, s, *chart.budget_bytes);
  for (const TimelineSeries& series : chart.series) draw_peak(svg, s, series);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace tinyfit::driver
