#include "compile_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "driver/compile_choice.h"
#include "plan/placement_input.h"
#include "support/byte_size.h"
#include "support/display_text.h"
#include "text_table.h"

namespace tinyfit::tools {
namespace {

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::string format_ratio(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3f", value);
  return buffer;
}

// The call at a candidate's peak position: "conv3 (Conv2D)".
std::string describe_peak_call(const ir::Graph& graph, const driver::CompileCandidate& c) {
  if (c.memory.positions.empty()) return {};
  const plan::KernelCall& call =
      plan::call_at(c.plan, c.memory.positions[static_cast<size_t>(c.memory.peak_position)]);
  if (call.node < 0) return "copy";
  const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
  return node.name + " (" + std::string(ir::op_type_name(node.op)) + ")";
}

// Names after a heading, wrapped at 100 columns for terminals, then a newline.
void print_wrapped(std::ostream& out, const std::vector<std::string>& names) {
  constexpr size_t kLineWidth = 100;
  size_t column = kLineWidth;
  for (const std::string& name : names) {
    if (column + 1 + name.size() > kLineWidth) {
      out << "\n ";
      column = 1;
    }
    out << " " << name;
    column += 1 + name.size();
  }
  out << "\n";
}

std::string why_chosen(const driver::CompileReport& r) {
  if (!r.sram_bytes) {
    if (std::isinf(r.latency_budget)) return "the smallest arena";
    char budget[64];
    std::snprintf(budget, sizeof budget, "the smallest arena within the latency budget %g", r.latency_budget);
    return budget;
  }
  return "the least predicted latency within --sram " + format_thousands(*r.sram_bytes) + " bytes";
}

// Predicted instructions over the ordinary plan's, when both are predicted.
std::optional<double> find_predicted_ratio(const driver::CompileReport& r, const driver::CompileCandidate& c) {
  const auto& base = r.ordinary().predicted_instructions;
  if (!c.predicted_instructions || !base || *base <= 0) return std::nullopt;
  return *c.predicted_instructions / *base;
}

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json();
}

}  // namespace

std::string describe_candidate_status(const driver::CompileReport& report, size_t candidate) {
  const driver::CompileCandidate& c = report.candidates.at(candidate);
  if (!c.built) return "not built yet";
  if (report.chosen == candidate) return "chosen";
  if (report.sram_bytes) return driver::fits_budget(c, *report.sram_bytes) ? "fits" : "over budget";
  return driver::within_latency_budget(report.candidates, c, report.latency_budget) ? "larger" : "slower";
}

void print_compile_text(std::ostream& out, const driver::CompileReport& r, const std::string& svg_path) {
  const driver::CompileCandidate& c = r.result();
  out << "model: " << escape_for_display(r.model) << "\n";
  using Align = TextTable::Align;
  TextTable table({"plan", "status", "peak_bytes", "arena_bytes", "macs", "calls", "loops", "instructions", "x ordinary",
                   "note"},
                  {Align::kLeft, Align::kLeft, Align::kRight, Align::kRight, Align::kRight, Align::kRight,
                   Align::kRight, Align::kRight, Align::kRight, Align::kLeft});
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    const driver::CompileCandidate& k = r.candidates[i];
    auto figure = [&k](int64_t v) { return k.built ? format_thousands(v) : std::string("-"); };
    const std::optional<double> ratio = find_predicted_ratio(r, k);
    table.add_row({k.name, describe_candidate_status(r, i), figure(k.peak_bytes), figure(k.arena_bytes),
                   figure(k.macs), figure(k.kernel_calls), k.built ? std::to_string(k.loops) : "-",
                   k.predicted_instructions ? format_thousands(std::llround(*k.predicted_instructions)) : "-",
                   ratio ? format_ratio(*ratio) : "-", k.note});
  }
  out << "candidate plans (bytes of activations; calls = kernel calls per inference; instructions = predicted "
         "retired instructions per inference on "
      << r.target << "):\n";
  table.print(out);
  out << "chosen: " << c.name << " (" << why_chosen(r) << ")\n"
      << "techniques: " << (c.techniques.empty() ? "none (ordinary execution)" : join(c.techniques, ", ")) << "\n"
      << "peak_bytes: " << format_thousands(c.peak_bytes) << " (ordinary: " << format_thousands(r.ordinary().peak_bytes)
      << ")\n"
      << "arena_bytes: " << format_thousands(c.arena_bytes) << " (placement " << c.placement << ", fragmentation "
      << format_ratio(plan::compute_fragmentation(c.arena_bytes, c.peak_bytes)) << ")\n"
      << "flash_bytes: " << format_thousands(r.flash_bytes) << "\n";
  if (r.const_data_bytes && r.flash_budget) {
    out << "const data: " << format_thousands(*r.const_data_bytes) << " bytes within --flash "
        << format_thousands(*r.flash_budget) << " (" << r.flash_note << ")\n";
  }
  out
      << "macs: " << format_thousands(c.macs) << " (" << format_ratio(r.macs_ratio()) << " x ordinary)\n"
      << "predicted instructions (" << r.target << "): "
      << (c.predicted_instructions ? format_thousands(std::llround(*c.predicted_instructions))
                                   : std::string("not predicted (the plan's note says why)"));
  if (const std::optional<double> ratio = find_predicted_ratio(r, c)) out << " (" << format_ratio(*ratio) << " x ordinary)";
  out << "\n"
      << "kernel calls: " << format_thousands(c.kernel_calls) << ", loops: " << c.loops
      << ", accumulator_bits: " << r.accumulator_bits << "\n"
      << "bottleneck: step " << r.bottleneck.step << ", " << escape_for_display(r.bottleneck.node) << " ("
      << r.bottleneck.op
      << "), live tensors:\n";
  for (const driver::LiveTensor& t : r.bottleneck.tensors) {
    out << "  " << escape_for_display(t.name) << ": " << format_thousands(t.bytes) << "\n";
  }
  out << "verified: " << (r.verification.verified ? "yes" : "no") << " (" << escape_for_display(r.verification.note) << ")\n";
  if (r.verification.max_abs_error) out << "max_abs_error: " << *r.verification.max_abs_error << "\n";
  out << "schedule (" << r.schedule.size() << " model nodes in execution order):";
  // A long list would bury the rest of the report on a terminal (MobileNetV2:
  // 338 nodes, ~170 lines); --json always has it.
  constexpr size_t kMostListed = 40;
  if (r.schedule.size() > kMostListed) {
    out << " --json lists them\n";
  } else {
    print_wrapped(out, r.schedule);
  }
  out << "compile_seconds: " << format_ratio(r.compile_seconds) << "\n";
  // What was written, last, where a terminal shows it.
  if (!r.emitted_files.empty()) {
    const auto runtime_files = std::count_if(r.emitted_files.begin(), r.emitted_files.end(),
                                             [](const std::string& path) { return path.starts_with("runtime/"); });
    const std::string& p = r.emitted_prefix;
    out << "C code written to " << r.emitted_dir << ":\n"
        << "  model.h         the API: " << p << "_input(i), " << p << "_invoke(), " << p << "_output(i) (zero copy), "
        << p << "_run()\n"
        << "  model.c         the plan, the weights (flash) and the arena (" << format_thousands(c.arena_bytes)
        << " bytes, the inputs and outputs in it)\n"
        << "  CMakeLists.txt  static library " << p << " for add_subdirectory\n"
        << "  README.md       how to build and call it\n"
        << "  runtime/        " << runtime_files << " files: the kernels it calls and their headers\n";
  }
  if (!svg_path.empty()) {
    out << "chart written to " << svg_path << ": live memory per plan step, "
        << (r.reported == 0 ? r.ordinary().name : "ordinary and " + c.name) << "\n";
  }
}

nlohmann::json make_compile_json(const driver::CompileReport& r, const std::string& svg_path) {
  const driver::CompileCandidate& c = r.result();
  nlohmann::json candidates = nlohmann::json::array();
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    const driver::CompileCandidate& k = r.candidates[i];
    nlohmann::json item = {{"name", k.name}, {"techniques", k.techniques}, {"status", describe_candidate_status(r, i)},
                           {"note", k.note}};
    if (k.built) {
      item.update({{"peak_bytes", k.peak_bytes},
                   {"arena_bytes", k.arena_bytes},
                   {"macs", k.macs},
                   {"kernel_calls", k.kernel_calls},
                   {"loops", k.loops},
                   {"placement", k.placement},
                   {"predicted_instructions", optional_json(k.predicted_instructions)},
                   {"predicted_ratio", optional_json(find_predicted_ratio(r, k))},
                   {"unmeasured_kernels", k.unmeasured_kernels}});
    }
    candidates.push_back(item);
  }
  nlohmann::json tensors = nlohmann::json::array();
  for (const driver::LiveTensor& t : r.bottleneck.tensors) tensors.push_back({{"name", t.name}, {"bytes", t.bytes}});
  return {{"model", r.model},
          {"sram_bytes", r.sram_bytes ? nlohmann::json(*r.sram_bytes) : nlohmann::json()},
          {"latency_budget", std::isinf(r.latency_budget) ? nlohmann::json() : nlohmann::json(r.latency_budget)},
          {"chosen", c.name},
          {"peak_bytes", c.peak_bytes},
          {"arena_bytes", c.arena_bytes},
          {"flash_bytes", r.flash_bytes},
          {"flash_budget", r.flash_budget ? nlohmann::json(*r.flash_budget) : nlohmann::json()},
          {"const_data_bytes", r.const_data_bytes ? nlohmann::json(*r.const_data_bytes) : nlohmann::json()},
          {"macs", c.macs},
          {"techniques", c.techniques},
          {"bottleneck",
           {{"step", r.bottleneck.step}, {"operator", r.bottleneck.node}, {"op", r.bottleneck.op}, {"tensors", tensors}}},
          {"verified", r.verification.verified},
          {"executed", r.verification.executed},
          {"verification_note", r.verification.note},
          {"max_abs_error",
           r.verification.max_abs_error ? nlohmann::json(*r.verification.max_abs_error) : nlohmann::json()},
          {"schedule", r.schedule},
          {"ordinary_peak_bytes", r.ordinary().peak_bytes},
          {"ordinary_arena_bytes", r.ordinary().arena_bytes},
          {"ordinary_macs", r.ordinary().macs},
          {"macs_ratio", r.macs_ratio()},
          {"candidates", candidates},
          {"placement", c.placement},
          {"kernel_calls", c.kernel_calls},
          {"target", r.target},
          {"predicted_instructions", optional_json(c.predicted_instructions)},
          {"predicted_ratio", optional_json(find_predicted_ratio(r, c))},
          {"loops", c.loops},
          {"accumulator_bits", r.accumulator_bits},
          {"emitted_dir", r.emitted_dir},
          {"emitted_files", r.emitted_files},
          {"emitted_library", r.emitted_prefix.empty() ? nlohmann::json() : nlohmann::json(r.emitted_prefix)},
          {"svg", svg_path.empty() ? nlohmann::json() : nlohmann::json(svg_path)},
          {"compile_seconds", r.compile_seconds}};
}

driver::TimelineChart make_compile_timeline(const ir::Graph& graph, const driver::CompileReport& r) {
  driver::TimelineChart chart;
  chart.title = std::filesystem::path(r.model).filename().string() + ": live memory per plan step";
  chart.tooltip = r.model;
  chart.budget_bytes = r.sram_bytes;
  auto add = [&](const driver::CompileCandidate& c, std::string label, std::string color) {
    driver::TimelineSeries series{std::move(label), c.memory.live_bytes, c.memory.peak_position,
                                  describe_peak_call(graph, c), std::move(color), {}};
    for (const plan::LoopSpan& span : c.memory.loops) {
      series.loops.push_back({span.first_position, span.last_position, span.depth,
                              span.loop->name + ": " + std::to_string(plan::count_iterations(*span.loop)) + " x " +
                                  std::to_string(span.loop->tile) + " " +
                                  std::string(plan::loop_axis_name(span.loop->axis))});
    }
    chart.series.push_back(std::move(series));
  };
  const bool same = r.reported == 0;
  const std::string role = r.fits() ? "chosen" : "smallest, does not fit";
  add(r.ordinary(), same ? "ordinary (" + role + ")" : "ordinary", same ? "#1f77b4" : "#7f7f7f");
  if (!same) add(r.result(), role + ": " + r.result().name, "#1f77b4");
  return chart;
}

}  // namespace tinyfit::tools
