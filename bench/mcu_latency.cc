// tinyfit_bench_mcu: the tables of issues 5, 10 §3 and 13. Issue 13's (the
// fastest plan that fits against TFLite Micro + CMSIS-NN, PEX overhead with
// the fast kernels) are described in mcu_fast_kernels.h. For every CI model
// (tests/mcu/ci_models.h) and technique (ordinary, partial execution), one run
// emits the plan as C, builds it for the Cortex-M4F board (mps2-an386) and for
// the host, and measures: the planned arena, the arena symbol's size in the
// ELF, total SRAM (.data + .bss + stack high-water mark) of two programs, the
// one before issue 10 (static input and output buffers handed to the copying
// run()) and the zero-copy one (input written through <prefix>_input, output
// read through <prefix>_output), beside TensorFlow Lite Micro's
// arena_used_bytes for the same model (../shared/notes/BASELINES.md), flash
// (code + constants) and the weights in it, and retired instructions of one
// <prefix>_invoke on the emulated Cortex-M (SysTick under -icount shift=0) and
// on the host (callgrind, the function inclusive). Each technique's overhead
// is its instruction count over ordinary execution's, measured in the same run.
// A row is measured only when both board programs' output bytes equal the
// plan executor's and the host build's.
//
// `--model MODEL --ram SIZE` measures one other model (any MODEL the command
// line takes, e.g. zoo:bert-tiny) on a board with SIZE of RAM instead of the CI
// list and budget: the long runs (BERT-Tiny at 512 tokens) belong here, not in CI.
//
// Instruction counts are deterministic (TOOLCHAIN.md), so one run suffices; no
// wall time is reported. Exit codes: 0 table printed; 2 bad command line or no
// model matched --only. A row that cannot be measured (technique or kernel
// not built yet, a build failure) says why in its place.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "checked_model.h"
#include "ci_models.h"
#include "cost/predict.h"
#include "emitted_build.h"
#include "exec/plan_executor.h"
#include "exec/plan_work.h"
#include "mcu_fast_kernels.h"
#include "support/byte_size.h"

namespace tinyfit::mcu {
namespace {

// TensorFlow Lite Micro's arena_used_bytes (its input and output tensors
// included) for the CI models it was measured on: ../shared/notes/BASELINES.md,
// tflite-micro 90b983c on the emulated Cortex-M4, 2026-11-23.
std::optional<int64_t> find_tflm_arena_used_bytes(const std::string& ci_model) {
  static const std::map<std::string, int64_t> kMeasured = {
      {"kws", 22'772}, {"vww", 100'660}, {"resnet8", 54'340}, {"ad01", 2'260}, {"mcunet_vww", 224'532}};
  const auto found = kMeasured.find(ci_model);
  return found == kMeasured.end() ? std::nullopt : std::optional<int64_t>(found->second);
}

struct Row {
  std::string model, technique;
  std::string problem;  // empty when measured
  int64_t planned_arena_bytes = 0;
  std::optional<int64_t> elf_arena_bytes;
  int64_t sram_caller_buffers_bytes = 0, sram_zero_copy_bytes = 0;
  int64_t flash_bytes = 0, weight_bytes = 0;
  uint64_t board_instructions = 0, host_instructions = 0;
  double predicted_board = 0, predicted_host = 0;  // the latency model (src/cost), before any build
};

// The cost table's prediction of one inference of `plan` on `target`.
Result<double> predict(const ir::Graph& graph, const plan::Plan& plan, std::string_view target) {
  TINYFIT_ASSIGN_OR_RETURN(const cost::CostTable* table, cost::find_cost_table(target));
  TINYFIT_ASSIGN_OR_RETURN(const cost::PlanWork work, exec::count_plan_work(graph, plan));
  return cost::predict_instructions(*table, work);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// One board program: built, run, its outputs checked against the executor's.
struct BoardRun {
  EmittedBuild build;
  ProgramReport report;
  std::map<std::string, int64_t> sections;
  int64_t section(const char* name) const { return sections.contains(name) ? sections.at(name) : int64_t{0}; }
  // Everything the firmware needs in SRAM: static data and the stack's deepest use.
  int64_t total_sram_bytes() const {
    return section(".data") + section(".bss") + static_cast<int64_t>(report.stack_bytes);
  }
};

Result<BoardRun> run_on_board(const CheckedModel& m, const plan::Plan& plan,
                              const std::vector<exec::TensorData>& executed, const std::string& name, IoMode io_mode,
                              int64_t ram_bytes) {
  BoardRun run;
  TINYFIT_ASSIGN_OR_RETURN(run.build, emit_and_build(m.graph, plan, m.inputs, executed, Target::kCortexM4,
                                                     ram_bytes, name, io_mode));
  TINYFIT_ASSIGN_OR_RETURN(run.report, run_program(Target::kCortexM4, run.build.executable));
  for (size_t o = 0; o < executed.size(); ++o) {
    if (!describe_byte_difference(run.report.outputs.at(o), executed[o]).empty()) {
      return fail("board output " + std::to_string(o) + " (" + std::string(io_mode_name(io_mode)) +
                  ") differs from the plan executor");
    }
  }
  run.sections = read_section_bytes(run.build.executable);
  return run;
}

Row measure(const CiModel& model, const CheckedModel& m, Technique technique, int64_t ram_bytes) {
  Row row;
  row.model = model.name;
  row.technique = technique_name(technique);
  auto unmeasured = [&row](std::string problem) {
    row.problem = first_line(problem);
    return row;
  };
  Result<plan::Plan> plan = build_technique_plan(m.graph, technique);
  if (!plan) return unmeasured(plan.error().format());
  row.planned_arena_bytes = plan->arena_bytes;
  Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m.graph, *plan, m.inputs);
  if (!executed) return unmeasured(executed.error().format());
  Result<double> predicted_board = predict(m.graph, *plan, "cortex-m4");
  Result<double> predicted_host = predict(m.graph, *plan, "host");
  if (!predicted_board) return unmeasured(predicted_board.error().format());
  if (!predicted_host) return unmeasured(predicted_host.error().format());
  row.predicted_board = *predicted_board;
  row.predicted_host = *predicted_host;

  const std::string name = "bench/" + model.name + "_" + row.technique;
  Result<BoardRun> zero_copy = run_on_board(m, *plan, *executed, name + "_m4", IoMode::kZeroCopy, ram_bytes);
  if (!zero_copy) return unmeasured(zero_copy.error().format());
  Result<BoardRun> caller_buffers = run_on_board(m, *plan, *executed, name + "_m4_run", IoMode::kCallerBuffers, ram_bytes);
  if (!caller_buffers) return unmeasured(caller_buffers.error().format());
  row.board_instructions = zero_copy->report.instructions;
  row.elf_arena_bytes = read_symbol_bytes(zero_copy->build.executable, zero_copy->build.program.arena_symbol);
  row.sram_zero_copy_bytes = zero_copy->total_sram_bytes();
  row.sram_caller_buffers_bytes = caller_buffers->total_sram_bytes();
  row.flash_bytes = zero_copy->section(".text") + zero_copy->section(".rodata") + zero_copy->section(".data");
  row.weight_bytes = zero_copy->build.model.constant_bytes;

  Result<EmittedBuild> host = emit_and_build(m.graph, *plan, m.inputs, *executed, Target::kHost, 0, name + "_host");
  if (!host) return unmeasured(host.error().format());
  Result<ProgramReport> host_report = run_program(Target::kHost, host->executable);
  if (!host_report) return unmeasured(host_report.error().format());
  if (host_report->outputs != zero_copy->report.outputs) return unmeasured("host and board outputs differ");
  Result<uint64_t> host_instructions = count_host_instructions(host->executable, host->program.measured_function);
  if (!host_instructions) return unmeasured(host_instructions.error().format());
  row.host_instructions = *host_instructions;
  return row;
}

std::string format_ratio(uint64_t value, uint64_t baseline) {
  if (baseline == 0 || value == 0) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << static_cast<double>(value) / static_cast<double>(baseline) << "x";
  return out.str();
}

std::string format_error(double predicted, uint64_t measured) {
  std::ostringstream out;
  out << std::showpos << std::fixed << std::setprecision(1)
      << 100.0 * (predicted - static_cast<double>(measured)) / static_cast<double>(measured) << "%";
  return out.str();
}

// The latency model's check (issue 11 section 6): predicted vs measured
// instructions per inference, per model and plan.
void print_prediction_table(const std::vector<Row>& rows) {
  std::cout << "\n| model | plan | M4 predicted | M4 measured | M4 error | host predicted | host measured | host error |\n"
            << "|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& row : rows) {
    if (!row.problem.empty()) continue;
    std::cout << "| " << row.model << " | " << row.technique << " | " << std::llround(row.predicted_board) << " | "
              << row.board_instructions << " | " << format_error(row.predicted_board, row.board_instructions) << " | "
              << std::llround(row.predicted_host) << " | " << row.host_instructions << " | "
              << format_error(row.predicted_host, row.host_instructions) << " |\n";
  }
}

void print_table(const std::vector<Row>& rows) {
  std::cout << "| model | technique | planned arena B | ELF arena symbol B | total SRAM B, run() with caller buffers "
               "(before) | total SRAM B, zero copy (after) | TFLM arena_used_bytes | flash B (model constants) "
               "| M4 instructions | host instructions | M4 overhead vs ordinary | host overhead vs ordinary |\n"
            << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  std::map<std::string, const Row*> ordinary;
  for (const Row& row : rows) {
    if (row.technique == "ordinary" && row.problem.empty()) ordinary[row.model] = &row;
  }
  for (const Row& row : rows) {
    std::cout << "| " << row.model << " | " << row.technique << " | ";
    if (!row.problem.empty()) {
      std::cout << (row.planned_arena_bytes ? std::to_string(row.planned_arena_bytes) : "-")
                << " | not measured: " << row.problem << " |||||||||\n";
      continue;
    }
    const Row* base = ordinary.contains(row.model) ? ordinary.at(row.model) : nullptr;
    const std::optional<int64_t> tflm = find_tflm_arena_used_bytes(row.model);
    std::cout << row.planned_arena_bytes << " | "
              << (row.elf_arena_bytes ? std::to_string(*row.elf_arena_bytes) : "absent") << " | "
              << row.sram_caller_buffers_bytes << " | " << row.sram_zero_copy_bytes << " | "
              << (tflm ? std::to_string(*tflm) : "-") << " | " << row.flash_bytes << " (" << row.weight_bytes
              << ") | " << row.board_instructions << " | " << row.host_instructions << " | "
              << (base ? format_ratio(row.board_instructions, base->board_instructions) : "-") << " | "
              << (base ? format_ratio(row.host_instructions, base->host_instructions) : "-") << " |\n";
  }
}

int run(int argc, char** argv) {
  CLI::App app{"tinyfit_bench_mcu: emitted C on an emulated Cortex-M4F and the host, one inference each"};
  std::string only, model_option, ram_option, table = "all";
  bool no_flash_budget = false;
  app.add_option("--only", only, "measure only the model with this short name (kws, vww, resnet8, ...)");
  app.add_option("--model", model_option, "measure this MODEL (a path or zoo:NAME) instead of the CI models");
  app.add_option("--ram", ram_option, "the board's RAM for --model (e.g. 4MiB; default the CI budget, 320KiB)");
  app.add_option("--table", table,
                 "issue13 (fastest plan vs CMSIS-NN, PEX overhead; not with --model), issue5 (sizes), or all")
      ->check(CLI::IsMember({"issue13", "issue5", "all"}));
  app.add_flag("--no-flash-budget", no_flash_budget,
               "issue13: no widened weights (the programs of tinyfit compile without --flash); by default each "
               "model's program widens convolution weights within the board's 4 MiB of flash");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  int64_t ram_bytes = kCiBoardRamBytes;
  if (!ram_option.empty()) {
    Result<int64_t> parsed = parse_byte_size(ram_option);
    if (!parsed || model_option.empty()) {
      std::cerr << "tinyfit_bench_mcu: error: --ram takes a size (262144, 256KiB, 256KB) and needs --model\n";
      return 2;
    }
    ram_bytes = *parsed;
  }
  // A --model is named by its characters that may name a program directory.
  std::string model_name = model_option;
  std::replace_if(
      model_name.begin(), model_name.end(),
      [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '-'; }, '_');
  const std::vector<CiModel> models =
      model_option.empty() ? list_ci_models() : std::vector<CiModel>{{model_name, model_option, false}};
  for (Target target : {Target::kCortexM4, Target::kHost}) {
    if (std::string missing = find_missing_tools(target); !missing.empty()) {
      std::cerr << "tinyfit_bench_mcu: error: " << missing << " is not installed\n";
      return 2;
    }
  }
  int measured = table != "issue5" && model_option.empty() ? print_fast_kernel_tables(only, !no_flash_budget) : 0;
  std::vector<Row> rows;
  for (const CiModel& model : table != "issue13" ? models : std::vector<CiModel>{}) {
    if (!only.empty() && model.name != only) continue;
    std::cerr << model.name << "...\n";
    Result<CheckedModel> m = load_checked_model(model.model);
    for (Technique technique : {Technique::kOrdinary, Technique::kPex}) {
      if (!m) {
        Row row;
        row.model = model.name;
        row.technique = technique_name(technique);
        row.problem = first_line(m.error().format());
        rows.push_back(std::move(row));
        continue;
      }
      rows.push_back(measure(model, *m, technique, ram_bytes));
    }
  }
  if (!rows.empty()) {
    std::cout << "## Issues 5 and 10: sizes and instructions per technique (no added workspaces)\n\n";
    print_table(rows);
    print_prediction_table(rows);
  }
  measured += static_cast<int>(rows.size());
  if (measured == 0) {
    std::cerr << "tinyfit_bench_mcu: error: no model is named '" << only << "'\n";
    return 2;
  }
  return 0;
}

}  // namespace
}  // namespace tinyfit::mcu

int main(int argc, char** argv) { return tinyfit::mcu::run(argc, argv); }
