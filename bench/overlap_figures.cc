// tinyfit_bench_overlap: the figures of issue 12 (segment-level overlap,
// vMCU, ../shared/papers/vmcu-segment-memory.txt) from one run, as the
// markdown of docs/benchmarks/overlap.md:
//  - single-layer: one-layer int8 models of a pointwise convolution (vMCU
//    §7.2, Fig. 7: H/W 80 down to 10, C and K 16 to 96), the overlap plan's
//    arena against tensor-level planning (input + output);
//  - modules: one-module int8 models of the inverted bottlenecks of vMCU
//    Table 2 (MCUNet-5fps-VWW S1-S8, MCUNet-320KB-ImageNet B1-B17), RAM of
//    ordinary execution (tensor-level, no in-place: HMCOS's policy), of order
//    + in-place (which covers TinyEngine's in-place depthwise), of the best
//    plan without overlap (PEX too) and with overlap (vMCU Figs. 9-10);
//  - networks: whole models, every technique (MOTES row loops too): ordinary,
//    the smallest plan without overlap, the smallest with overlap
//    (`--latency-budget none`) and the default compile (the smallest within
//    the default latency budget, 1.05x ordinary's predicted instructions),
//    against the goals and TensorFlow Lite Micro's arena; with
//    --board also the emitted C of the four plans on the emulated Cortex-M4
//    (retired instructions of one invoke, ratios to ordinary from the same
//    run).
// Every plan comes from driver::compile_model, which executes it in an arena
// of exactly arena_bytes in the checking mode (every read checked against
// the last writer of its bytes) against the reference interpreter; the
// "verified" columns print what it found, never an assumption.
//
// Exit codes: 0 tables printed; 2 bad command line or missing board tools.
// A row that cannot be measured says why in its place.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "checked_model.h"
#include "driver/compile_pipeline.h"
#include "emitted_build.h"
#include "exec/plan_executor.h"
#include "ir/verify_graph.h"
#include "partition/motes_search.h"
#include "support/byte_size.h"
#include "support/inverted_bottleneck_nets.h"

namespace tinyfit::bench {
namespace {

using exec::conv_test::BottleneckConfig;
using exec::conv_test::Net;

// The technique sets the layer and module tables compare (ordinary is every
// report's candidate 0): MOTES is left out, these tables are about overlap
// against tensor-level planning (tinyfit_bench_motes has MOTES's figures).
// The network table takes every technique.
driver::TechniqueSet order_and_inplace() { return {true, true, false, false, false}; }
driver::TechniqueSet without_overlap() { return {true, true, true, false, false}; }
driver::TechniqueSet every_technique() { return {true, true, true, false, true}; }
driver::TechniqueSet network_without_overlap() { return {true, true, true, true, false}; }
driver::TechniqueSet network_every_technique() { return {}; }

// Each technique set's smallest plan, whatever its latency (the tables print
// its instruction ratio beside it): the choice without a latency budget, or
// the smallest within `latency_budget`.
Result<driver::CompileReport> compile_with(const ir::Graph& graph, driver::TechniqueSet techniques,
                                           double latency_budget = partition::kNoLatencyBudget) {
  driver::CompileOptions options;
  options.techniques = techniques;
  options.latency_budget = latency_budget;
  return driver::compile_model(graph, options);
}

std::string format_percent_less(int64_t value, int64_t baseline) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << 100.0 * static_cast<double>(baseline - value) / static_cast<double>(baseline)
      << "%";
  return out.str();
}

std::string format_verified(const driver::CompileReport& report) {
  return report.verification.verified ? "yes" : "no: " + report.verification.note;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// ---- single layers ---------------------------------------------------------

struct PointwiseCase {
  int64_t size, in_channels, out_channels;  // H = W, C, K
};

// vMCU's ranges (§7.2): equal channels on the large images (its cases 1-3,
// where the reduction nears 50%), then growing and shrinking channels.
std::vector<PointwiseCase> list_pointwise_cases() {
  return {{80, 16, 16}, {64, 24, 24}, {40, 32, 32}, {40, 16, 96}, {40, 96, 16},
          {20, 48, 96}, {20, 96, 48}, {10, 64, 96}, {10, 96, 64}};
}

void print_single_layer_table() {
  std::cout << "## Single layers: pointwise convolutions (vMCU §7.2, Fig. 7)\n\n"
            << "| layer | input B | output B | tensor-level (input + output) B | ordinary arena B | overlap arena B "
               "| less than tensor-level | verified |\n"
            << "|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const PointwiseCase& c : list_pointwise_cases()) {
    std::cerr << "single layer H/W" << c.size << " C" << c.in_channels << " K" << c.out_channels << "...\n";
    Net net;
    const ir::TensorId x = net.add_input({1, c.size, c.size, c.in_channels});
    const ir::TensorId y = net.add_layer(
        "pointwise", x,
        exec::conv_test::make_same_layer(ir::OpType::kConv2D, c.out_channels, 1, 1, c.size, c.size,
                                         exec::conv_test::relu6()));
    net.graph.outputs = {y};
    const int64_t input_bytes = net.graph.tensor(x).size_bytes();
    const int64_t output_bytes = net.graph.tensor(y).size_bytes();
    std::cout << "| H/W " << c.size << ", C " << c.in_channels << ", K " << c.out_channels << " | "
              << format_thousands(input_bytes) << " | " << format_thousands(output_bytes) << " | "
              << format_thousands(input_bytes + output_bytes) << " | ";
    Result<driver::CompileReport> report = compile_with(net.graph, every_technique());
    if (!report) {
      std::cout << "not measured: " << first_line(report.error().format()) << " ||||\n";
      continue;
    }
    const int64_t arena = report->result().arena_bytes;
    std::cout << format_thousands(report->ordinary().arena_bytes) << " | " << format_thousands(arena) << " | "
              << format_percent_less(arena, input_bytes + output_bytes) << " | " << format_verified(*report) << " |\n";
  }
  std::cout << "\n";
}

// ---- inverted bottleneck modules --------------------------------------------

struct ModuleCase {
  std::string name;
  int64_t size, in_channels, mid_channels, out_channels, dw_kernel;
  int64_t expand_stride, dw_stride, project_stride;  // vMCU Table 2's "strides"
};

// vMCU Table 2, verbatim. B1 is MCUNet's first block: its "expand" is the
// 3x3 stride-2 stem convolution (C_in 3 is the image).
std::vector<ModuleCase> list_module_cases() {
  return {
      {"S1", 20, 16, 48, 16, 3, 1, 1, 1},    {"S2", 20, 16, 48, 16, 3, 1, 1, 1},
      {"S3", 10, 24, 144, 16, 3, 1, 1, 1},   {"S4", 10, 24, 120, 24, 3, 1, 1, 1},
      {"S5", 5, 40, 240, 40, 3, 1, 1, 1},    {"S6", 5, 48, 192, 48, 3, 1, 1, 1},
      {"S7", 3, 96, 480, 96, 3, 1, 1, 1},    {"S8", 3, 96, 384, 96, 3, 1, 1, 1},
      {"B1", 176, 3, 16, 8, 3, 2, 1, 1},     {"B2", 88, 8, 24, 16, 7, 1, 2, 1},
      {"B3", 44, 16, 80, 16, 3, 1, 1, 1},    {"B4", 44, 16, 80, 16, 7, 1, 1, 1},
      {"B5", 44, 16, 64, 24, 5, 1, 1, 1},    {"B6", 44, 16, 80, 24, 5, 1, 2, 1},
      {"B7", 22, 24, 120, 24, 5, 1, 1, 1},   {"B8", 22, 24, 120, 24, 5, 1, 1, 1},
      {"B9", 22, 24, 120, 40, 3, 1, 2, 1},   {"B10", 11, 40, 240, 40, 7, 1, 1, 1},
      {"B11", 11, 40, 160, 40, 5, 1, 1, 1},  {"B12", 11, 40, 200, 48, 7, 1, 2, 1},
      {"B13", 11, 48, 240, 48, 7, 1, 1, 1},  {"B14", 11, 48, 240, 48, 3, 1, 1, 1},
      {"B15", 11, 48, 288, 96, 3, 1, 2, 1},  {"B16", 6, 96, 480, 96, 7, 1, 1, 1},
      {"B17", 6, 96, 384, 96, 3, 1, 1, 1},
  };
}

// MCUNet's blocks add their input back when the shape allows it (same
// channels, every stride 1).
bool has_residual(const ModuleCase& c) {
  return c.in_channels == c.out_channels && c.expand_stride == 1 && c.dw_stride == 1 && c.project_stride == 1;
}

// The module as a one-module model.
Net make_module(const ModuleCase& c) {
  Net net;
  const ir::TensorId x = net.add_input({1, c.size, c.size, c.in_channels});
  BottleneckConfig config;
  config.mid_channels = c.mid_channels;
  config.out_channels = c.out_channels;
  const bool stem = c.name == "B1";
  config.expand_kernel = stem ? 3 : 1;
  config.expand_stride = c.expand_stride;
  config.dw_kernel = c.dw_kernel;
  config.dw_stride = c.dw_stride;
  config.residual = has_residual(c);
  net.graph.outputs = {exec::conv_test::add_inverted_bottleneck(net, c.name, x, config)};
  return net;
}

void print_module_table() {
  std::cout << "## Inverted bottleneck modules (vMCU Table 2, Figs. 9-10)\n\n"
            << "| module | H/W, C_in, C_mid, C_out, R/S, strides | residual | ordinary (tensor-level, no in-place) B "
               "| order + in-place B | best without overlap B (plan) | with overlap B (plan) | less than ordinary "
               "| less than order + in-place | less than without overlap | verified |\n"
            << "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
  for (const ModuleCase& c : list_module_cases()) {
    std::cerr << "module " << c.name << "...\n";
    const Net net = make_module(c);
    std::cout << "| " << c.name << " | " << c.size << ", " << c.in_channels << ", " << c.mid_channels << ", "
              << c.out_channels << ", " << c.dw_kernel << ", " << c.expand_stride << "," << c.dw_stride << ","
              << c.project_stride << " | " << (has_residual(c) ? "yes" : "no") << " | ";
    std::vector<driver::CompileReport> reports;  // order + in-place, without overlap, with overlap
    for (driver::TechniqueSet techniques : {order_and_inplace(), without_overlap(), every_technique()}) {
      Result<driver::CompileReport> report = compile_with(net.graph, techniques);
      if (!report) {
        std::cout << "not measured: " << first_line(report.error().format()) << " ||||||||\n";
        break;
      }
      reports.push_back(std::move(*report));
    }
    if (reports.size() < 3) continue;
    const int64_t ordinary = reports[2].ordinary().arena_bytes;
    const int64_t inplace = reports[0].result().arena_bytes;
    const int64_t best = reports[1].result().arena_bytes;
    const int64_t overlap = reports[2].result().arena_bytes;
    const bool verified = std::all_of(reports.begin(), reports.end(),
                                      [](const driver::CompileReport& r) { return r.verification.verified; });
    std::cout << format_thousands(ordinary) << " | " << format_thousands(inplace) << " | " << format_thousands(best)
              << " (" << reports[1].result().name << ") | " << format_thousands(overlap) << " ("
              << reports[2].result().name << ") | " << format_percent_less(overlap, ordinary) << " | "
              << format_percent_less(overlap, inplace) << " | " << format_percent_less(overlap, best) << " | "
              << (verified ? "yes" : "no") << " |\n";
  }
  std::cout << "\n";
}

// ---- whole networks -------------------------------------------------------

struct NetworkCase {
  std::string name;   // short name for the table and program directories
  std::string model;  // MODEL as the command line takes it
  std::optional<int64_t> goal_bytes;       // issue 12's arena goal
  std::optional<int64_t> tflm_arena_bytes;  // ../shared/notes/BASELINES.md
};

// Issue 12's networks with their goals, and every shared model TensorFlow
// Lite Micro was measured on (BASELINES.md: tflite-micro 90b983c,
// arena_used_bytes on the emulated Cortex-M4, 2026-11-23), whose goal is a
// quarter of TFLM's arena.
std::vector<NetworkCase> list_network_cases() {
  const std::string shared = std::string(TINYFIT_MODELS_DIR) + "/tflite/";
  const std::vector<NetworkCase> measured_by_tflm = {
      {"kws", shared + "mlperf_tiny/kws_ref_model_int8.tflite", std::nullopt, 22'772},
      {"vww_96", shared + "mlperf_tiny/vww_96_int8.tflite", std::nullopt, 100'660},
      {"resnet8", shared + "mlperf_tiny/resnet8_int8.tflite", std::nullopt, 54'340},
      {"ad01", shared + "mlperf_tiny/ad01_int8.tflite", std::nullopt, 2'260},
      {"mcunet_5fps_vww", shared + "mcunet/mcunet-5fps_vww.tflite", 32'000, 224'532},
      {"person_detect", shared + "tflite_micro/person_detect_int8.tflite", std::nullopt, 82'292},
      {"mbv2_w035_r144", shared + "mcunet/mbv2-w0.35-r144_imagenet.tflite", std::nullopt, 585'668},
      {"mcunet_320kb", shared + "mcunet/mcunet-320kb-1mb_imagenet.tflite", 96'000, 503'332},
  };
  std::vector<NetworkCase> cases;
  for (NetworkCase c : measured_by_tflm) {
    const int64_t quarter = *c.tflm_arena_bytes / 4;
    c.goal_bytes = c.goal_bytes ? std::min(*c.goal_bytes, quarter) : quarter;
    cases.push_back(std::move(c));
  }
  cases.push_back({"zoo_mcunet_320kb", "zoo:mcunet-320kb-imagenet", 96'000, std::nullopt});
  cases.push_back({"zoo_mobilenetv2_224", "zoo:mobilenetv2-224", 200'000, std::nullopt});
  return cases;
}

// The board's RAM for these programs: all of mps2-an386's SRAM (4 MiB,
// ../shared/notes/TOOLCHAIN.md), since ordinary plans of the large networks
// need up to 1.5 MB.
constexpr int64_t kBoardRamBytes = int64_t{4} << 20;

// Retired instructions of one invoke of the plan's emitted C on the emulated
// Cortex-M4, after checking the board's outputs against the plan executor's.
Result<uint64_t> count_board_instructions(const mcu::CheckedModel& m, const plan::Plan& plan, const std::string& name) {
  exec::ExecuteOptions checking;
  checking.check_overwrites = true;
  TINYFIT_ASSIGN_OR_RETURN(std::vector<exec::TensorData> executed, exec::execute_plan(m.graph, plan, m.inputs, checking));
  TINYFIT_ASSIGN_OR_RETURN(mcu::EmittedBuild build, mcu::emit_and_build(m.graph, plan, m.inputs, executed,
                                                                         mcu::Target::kCortexM4, kBoardRamBytes,
                                                                         "bench_overlap/" + name));
  TINYFIT_ASSIGN_OR_RETURN(mcu::ProgramReport report, mcu::run_program(mcu::Target::kCortexM4, build.executable));
  for (size_t o = 0; o < executed.size(); ++o) {
    if (!mcu::describe_byte_difference(report.outputs.at(o), executed[o]).empty()) {
      return fail("board output " + std::to_string(o) + " differs from the plan executor");
    }
  }
  return report.instructions;
}

std::string format_ratio(uint64_t value, uint64_t baseline) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << static_cast<double>(value) / static_cast<double>(baseline) << "x";
  return out.str();
}

void print_network_row(const NetworkCase& c, bool board) {
  std::cout << "| " << c.name << " | ";
  auto unmeasured = [](const Diag& problem) {
    std::cout << "not measured: " << first_line(problem.format()) << " ||||||||||||\n";
  };
  Result<mcu::CheckedModel> m = mcu::load_checked_model(c.model);
  if (!m) return unmeasured(m.error());
  if (Status valid = ir::verify_graph(m->graph); !valid) return unmeasured(valid.error());
  std::vector<driver::CompileReport> reports;  // without overlap, smallest, default compile
  for (const auto& [techniques, budget] :
       {std::pair{network_without_overlap(), partition::kNoLatencyBudget},
        std::pair{network_every_technique(), partition::kNoLatencyBudget},
        std::pair{network_every_technique(), driver::CompileOptions{}.latency_budget}}) {
    Result<driver::CompileReport> report = compile_with(m->graph, techniques, budget);
    if (!report) return unmeasured(report.error());
    reports.push_back(std::move(*report));
  }
  const driver::CompileCandidate& ordinary = reports[2].ordinary();
  std::vector<const driver::CompileCandidate*> plans = {&ordinary};
  for (const driver::CompileReport& r : reports) plans.push_back(&r.result());
  auto describe = [](const driver::CompileCandidate& p) {
    return format_thousands(p.peak_bytes) + " / " + format_thousands(p.arena_bytes);
  };
  std::cout << describe(ordinary) << " | ";
  for (size_t i = 1; i < plans.size(); ++i) std::cout << describe(*plans[i]) << " (" << plans[i]->name << ") | ";
  const driver::CompileCandidate& chosen = *plans.back();
  std::cout << (c.goal_bytes ? format_thousands(*c.goal_bytes) : "-") << " | "
            << (c.goal_bytes ? (chosen.arena_bytes <= *c.goal_bytes ? "yes" : "no") : "-") << " | "
            << (c.tflm_arena_bytes ? format_thousands(*c.tflm_arena_bytes) : "-") << " | ";
  if (board) {
    std::vector<Result<uint64_t>> counts;
    const char* suffixes[] = {"ordinary", "best", "smallest", "default"};
    for (size_t i = 0; i < plans.size(); ++i) {
      std::cerr << "  " << c.name << " " << suffixes[i] << " on the Cortex-M4...\n";
      counts.push_back(count_board_instructions(*m, plans[i]->plan, c.name + "_" + suffixes[i]));
    }
    for (size_t i = 1; i < counts.size(); ++i) {
      std::cout << (counts[0] && counts[i] ? format_ratio(*counts[i], *counts[0])
                                           : "not measured: " + first_line((!counts[0] ? counts[0] : counts[i])
                                                                               .error()
                                                                               .format()))
                << " | ";
    }
    std::cout << (counts[0] ? std::to_string(*counts[0]) : "-") << " | ";
  } else {
    std::cout << "not run (--board) | not run (--board) | not run (--board) | - | ";
  }
  for (size_t i = 0; i < reports.size(); ++i) {
    std::cout << (i ? " / " : "") << (reports[i].verification.verified ? "yes" : "no");
  }
  std::cout << " |\n";
}

void print_network_table(bool board, const std::string& only) {
  std::cout << "## Whole networks: every technique together\n\n"
            << "| model | ordinary peak / arena B | smallest without overlap: peak / arena B (plan) | smallest, every "
               "technique (`--latency-budget none`): peak / arena B (plan) | default compile (every technique, "
               "latency budget 1.05): peak / arena B (plan) | goal B | default within goal | TFLM "
               "arena_used_bytes | M4 instructions / ordinary: without overlap | M4: smallest | M4: default | M4 "
               "instructions, ordinary | verified (without overlap / smallest / default) |\n"
            << "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|\n";
  for (const NetworkCase& c : list_network_cases()) {
    if (!only.empty() && c.name != only) continue;
    std::cerr << "network " << c.name << "...\n";
    print_network_row(c, board);
  }
  std::cout << "\n";
}

int run(int argc, char** argv) {
  CLI::App app{"tinyfit_bench_overlap: issue 12's figures (segment-level overlap), one run"};
  std::string table = "all", only;
  bool board = false;
  app.add_option("--table", table, "single-layer, modules, networks or all")
      ->check(CLI::IsMember({"single-layer", "modules", "networks", "all"}));
  app.add_flag("--board", board, "networks: also run the emitted C on the emulated Cortex-M4 (minutes)");
  app.add_option("--only", only, "networks: only the row with this name (kws, mcunet_320kb, ...)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (board) {
    if (std::string missing = mcu::find_missing_tools(mcu::Target::kCortexM4); !missing.empty()) {
      std::cerr << "tinyfit_bench_overlap: error: " << missing << " is not installed (needed by --board)\n";
      return 2;
    }
  }
  if (table == "single-layer" || table == "all") print_single_layer_table();
  if (table == "modules" || table == "all") print_module_table();
  if (table == "networks" || table == "all") print_network_table(board, only);
  return 0;
}

}  // namespace
}  // namespace tinyfit::bench

int main(int argc, char** argv) { return tinyfit::bench::run(argc, argv); }
