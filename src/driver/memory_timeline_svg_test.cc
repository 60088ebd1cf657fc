#include "driver/memory_timeline_svg.h"

#include <gtest/gtest.h>

namespace tinyfit::driver {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TimelineChart make_chart() {
  TimelineChart chart;
  chart.title = "zoo:tiny <&> net";
  // Live bytes per position of two made-up plans; peaks 5,120 (position 1) and 3,584 (position 1).
  chart.series.push_back({"ordinary", {3072, 5120, 4608, 3072, 1536}, 1, "q_big (Concat)", "#7f7f7f", {}});
  chart.series.push_back({"chosen: order:best", {3072, 3584, 3584, 3072, 1536}, 1, "p_small (MaxPool)", "#1f77b4", {}});
  chart.budget_bytes = 4096;
  return chart;
}

TEST(MemoryTimelineSvg, IsOneSvgDocumentWithALineAndAPeakPerSeries) {
  const std::string svg = render_memory_timeline_svg(make_chart());
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_EQ(count(svg, "<svg "), 1u);
  EXPECT_EQ(count(svg, "</svg>"), 1u);
  EXPECT_EQ(count(svg, "<circle "), 2u);
  // The chosen (last) series is drawn filled and stroked, the other stroked only.
  EXPECT_EQ(count(svg, "stroke=\"#1f77b4\" stroke-width=\"2\""), 1u);
  EXPECT_EQ(count(svg, "stroke=\"#7f7f7f\" stroke-width=\"2\""), 1u);
  EXPECT_EQ(count(svg, "fill-opacity"), 1u);
}

TEST(MemoryTimelineSvg, LabelsSayKiBStepsPeaksAndTheBudget) {
  const std::string svg = render_memory_timeline_svg(make_chart());
  EXPECT_NE(svg.find("live memory (KiB)"), std::string::npos);
  EXPECT_NE(svg.find("plan step"), std::string::npos);
  // 5,120 bytes = 5.00 KiB; 4,096 = 4.00 KiB (two decimals below 10 KiB).
  EXPECT_NE(svg.find("ordinary: peak 5.00 KiB (5,120 bytes) at step 1, q_big (Concat)"), std::string::npos);
  EXPECT_NE(svg.find("--sram budget 4.00 KiB (4,096 bytes)"), std::string::npos);
}

TEST(MemoryTimelineSvg, YTicksAreRoundKiBCoveringPeakAndBudget) {
  const std::string svg = render_memory_timeline_svg(make_chart());
  // Max 5,120 bytes = 5 KiB, +8% headroom = 5.4 KiB over about six ticks: a 1 KiB step up to 6.
  for (const char* tick : {">0</text>", ">1</text>", ">5</text>", ">6</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_EQ(svg.find(">7</text>"), std::string::npos);
}

TEST(MemoryTimelineSvg, TextIsXmlEscaped) {
  const std::string svg = render_memory_timeline_svg(make_chart());
  EXPECT_NE(svg.find("zoo:tiny &lt;&amp;&gt; net"), std::string::npos);
  EXPECT_EQ(svg.find("<&>"), std::string::npos);
}

TEST(MemoryTimelineSvg, EmptyChartDrawsOnlyTheAxes) {
  const std::string svg = render_memory_timeline_svg({});
  EXPECT_EQ(count(svg, "<circle "), 0u);
  EXPECT_EQ(count(svg, "<path "), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

// The chart's title as drawn (after its <title> tooltip), and the tooltip.
std::pair<std::string, std::string> find_title(const std::string& svg) {
  const std::string open = "<title>", close = "</title>";
  const size_t tooltip = svg.find(open) + open.size();
  const size_t shown = svg.find(close, tooltip) + close.size();
  return {svg.substr(shown, svg.find("</text>", shown) - shown), svg.substr(tooltip, shown - close.size() - tooltip)};
}

TEST(MemoryTimelineSvg, ALongTitleIsShortenedToTheChartWidthAndWholeInItsTooltip) {
  TimelineChart chart = make_chart();
  const std::string path = "/home/user/" + std::string(150, 'd') + "/kws_ref_model_int8.tflite";
  chart.title = path + ": live memory per plan step";
  chart.tooltip = path;
  const auto [shown, tooltip] = find_title(render_memory_timeline_svg(chart));
  EXPECT_EQ(tooltip, path);
  // The title starts at x = 96 and the plot ends at x = 930 (memory_timeline_svg.cc).
  EXPECT_LE(estimate_bold_text_width(shown, 17), 930 - 96) << shown;
  EXPECT_NE(shown.find("\u2026"), std::string::npos) << shown;
  EXPECT_TRUE(shown.starts_with("/home/user/")) << shown;
  EXPECT_TRUE(shown.ends_with("per plan step")) << shown;
}

TEST(MemoryTimelineSvg, AShortTitleIsDrawnWholeWithItselfAsTooltip) {
  const auto [shown, tooltip] = find_title(render_memory_timeline_svg(make_chart()));
  EXPECT_EQ(shown, "zoo:tiny &lt;&amp;&gt; net");
  EXPECT_EQ(tooltip, shown);
}

TEST(FitTextToWidth, NeverSplitsAUtf8Character) {
  // 40 two-byte characters at 1.1 em x 10 px = 440 px; 100 px keeps 8 of them and the ellipsis.
  std::string text;
  for (int i = 0; i < 40; ++i) text += "\u00e9";
  const std::string fitted = fit_text_to_width(text, 100, 10);
  EXPECT_EQ(fitted, "\u00e9\u00e9\u00e9\u00e9\u2026\u00e9\u00e9\u00e9\u00e9");
  EXPECT_LE(estimate_bold_text_width(fitted, 10), 100);
}

TEST(FormatKib, OneDecimalFromTenKiBTwoBelow) {
  EXPECT_EQ(format_kib(1'505'280), "1,470.0 KiB");  // DESIGN.md: 1,505,280 bytes = 1470 KiB
  EXPECT_EQ(format_kib(2'048), "2.00 KiB");
  EXPECT_EQ(format_kib(512), "512 bytes");
}

TEST(MemoryTimelineSvg, TheLastSeriesLoopsAreShadedBandsWithTheirNames) {
  TimelineChart chart = make_chart();
  // A loop over positions 1..3 holding one nested over 2..3 (plan_memory.h LoopSpan).
  chart.series.back().loops = {{1, 3, 0, "rows-0: 56 x 2 rows"}, {2, 3, 1, "channels"}};
  const std::string svg = render_memory_timeline_svg(chart);
  EXPECT_EQ(count(svg, "<rect x="), 2u);
  EXPECT_NE(svg.find(">rows-0: 56 x 2 rows</text>"), std::string::npos);
  EXPECT_NE(svg.find(">channels</text>"), std::string::npos);
}

TEST(MemoryTimelineSvg, BelowOneKiBTheAxisCountsBytes) {
  TimelineChart chart;
  chart.series.push_back({"ordinary", {32}, 0, "relu0 (Clip)", "#1f77b4", {}});
  chart.budget_bytes = 30;
  const std::string svg = render_memory_timeline_svg(chart);
  EXPECT_NE(svg.find("live memory (bytes)"), std::string::npos);
  // 32 bytes + 8% = 34.6 over about six ticks: a 10-byte step up to 40.
  EXPECT_NE(svg.find(">40</text>"), std::string::npos);
  EXPECT_NE(svg.find("--sram budget 30 bytes<"), std::string::npos);
}

}  // namespace
}  // namespace tinyfit::driver
