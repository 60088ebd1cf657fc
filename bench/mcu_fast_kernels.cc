#include "mcu_fast_kernels.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "checked_model.h"
#include "ci_models.h"
#include "emitted_build.h"
#include "cost/cost_table.h"
#include "driver/widen_weights.h"
#include "exec/add_kernel_workspaces.h"
#include "exec/plan_executor.h"
#include "ir/op_decl.h"
#include "plan/lower_pex.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"

namespace tinyfit::mcu {
namespace {

// The first line of a message; an error's format() spells the newlines of
// quoted tool output as \x0a.
std::string first_line(const std::string& text) {
  return text.substr(0, std::min(text.find('\n'), text.find("\\x0a")));
}

// --- One plan on the board --------------------------------------------------

struct FastRun {
  std::string problem;  // empty when measured
  uint64_t instructions = 0;
  int64_t arena_bytes = 0;
  int64_t kernel_code_bytes = 0;  // .text of the runtime kernel files shipped
  int64_t rodata_bytes = 0;       // the ELF's .rodata (weights, records, kernel tables)
  std::string flash_note;         // with a flash budget: what widening did
  ProgramReport report;           // what the board printed
  EmittedBuild build;
  std::vector<exec::TensorData> executed;
};

// Executes `plan` on the host (the oracle for the board's bytes), emits it,
// builds it for the Cortex-M4 within the board's RAM and runs it.
FastRun run_fast_on_board(const CheckedModel& m, const plan::Plan& plan, const std::string& name) {
  FastRun run;
  run.arena_bytes = plan.arena_bytes;
  Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m.graph, plan, m.inputs);
  if (!executed) return run.problem = first_line(executed.error().format()), run;
  run.executed = std::move(*executed);
  Result<EmittedBuild> board = emit_and_build(m.graph, plan, m.inputs, run.executed, Target::kCortexM4,
                                              kCiBoardRamBytes, name + "_m4", IoMode::kZeroCopy);
  if (!board) {
    const std::string message = board.error().format();
    const size_t overflow = message.find("overflowed by");
    run.problem = overflow != std::string::npos ? "does not fit the board's RAM (region RAM " +
                                                      first_line(message.substr(overflow)) + ")"
                                                : first_line(message);
    return run;
  }
  run.build = std::move(*board);
  Result<ProgramReport> report = run_program(Target::kCortexM4, run.build.executable);
  if (!report) return run.problem = first_line(report.error().format()), run;
  for (size_t o = 0; o < run.executed.size(); ++o) {
    if (!describe_byte_difference(report->outputs[o], run.executed[o]).empty()) {
      return run.problem = "board output " + std::to_string(o) + " differs from the plan executor", run;
    }
  }
  run.instructions = report->instructions;
  run.report = std::move(*report);
  const std::map<std::string, int64_t> sections = read_section_bytes(run.build.executable);
  run.rodata_bytes = sections.contains(".rodata") ? sections.at(".rodata") : 0;
  for (const std::string& source : run.build.program.c_sources) {
    if (source.find("/runtime/kernels/") == std::string::npos) continue;
    const std::optional<int64_t> bytes =
        measure_code_bytes(Target::kCortexM4, source, run.build.program.include_dirs);
    if (!bytes) return run.problem = source + " does not compile alone", run;
    run.kernel_code_bytes += *bytes;
  }
  return run;
}

std::string format_ratio(double value) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << value << "x";
  return out.str();
}

std::string format_fixed(double value, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << value;
  return out.str();
}

// --- Plans --------------------------------------------------------------------

// A technique's plan with the fastest kernels' workspaces added, placed as
// tinyfit compile places it (best: the smallest of every placement
// algorithm's arenas) and verified. PEX: the largest
// tiles that fit `pex_budget_bytes` (0: smallest peak).
Result<plan::Plan> build_fast_plan(const ir::Graph& graph, Technique technique, int64_t pex_budget_bytes) {
  plan::Plan plan;
  if (technique == Technique::kPex) {
    plan::PexOptions options;
    options.sram_bytes = pex_budget_bytes;
    TINYFIT_ASSIGN_OR_RETURN(plan::PexResult pex, plan::build_pex_plan(graph, options));
    plan = std::move(pex.plan);
  } else {
    TINYFIT_ASSIGN_OR_RETURN(plan, build_technique_plan(graph, technique));
  }
  TINYFIT_ASSIGN_OR_RETURN(const int added, exec::add_kernel_workspaces(graph, plan));
  (void)added;
  TINYFIT_RETURN_IF_ERROR(plan::place_plan(plan, "best", {}));
  TINYFIT_RETURN_IF_ERROR(plan::verify_plan(graph, plan));
  return plan;
}

// --- Issue 13 -------------------------------------------------------------------

// A model of issue 13's table and what it is compared with: TFLite Micro +
// CMSIS-NN on the same emulated board, counter and -O2
// (../shared/notes/BASELINES.md, measured 2026-11-23), and tinyfit's own
// count before the fast kernels (issue 13's table: the portable direct
// kernels, ordinary execution).
struct Issue13Model {
  std::string name, model;
  uint64_t cmsis_nn_instructions, tinyfit_before_instructions;
  // The flash budget of its program's const data (tinyfit compile --flash):
  // the board's, or none (no widened weights) for a model built for less
  // flash than its weights leave room in.
  std::optional<int64_t> flash_bytes = kCiBoardFlashBytes;
};

std::vector<Issue13Model> list_issue13_models() {
  const std::string shared = std::string(TINYFIT_MODELS_DIR) + "/tflite/";
  return {
      {"kws", shared + "mlperf_tiny/kws_ref_model_int8.tflite", 7698080, 24188120},
      {"vww_96", shared + "mlperf_tiny/vww_96_int8.tflite", 24102360, 58877320},
      {"resnet8", shared + "mlperf_tiny/resnet8_int8.tflite", 29861880, 70797960},
      {"ad01", shared + "mlperf_tiny/ad01_int8.tflite", 583160, 1161600},
      {"mcunet-5fps_vww", shared + "mcunet/mcunet-5fps_vww.tflite", 48941760, 103967800},
      {"person_detect", shared + "tflite_micro/person_detect_int8.tflite", 22928840, 56835520},
      {"mbv2-w0.35-r144", shared + "mcunet/mbv2-w0.35-r144_imagenet.tflite", 100888560, 236719440},
      // Built for 1 MB of flash, which its own weights fill (1,012,712 B of .rodata).
      {"mcunet-320kb-1mb", shared + "mcunet/mcunet-320kb-1mb_imagenet.tflite", 395298360, 753717800, std::nullopt},
  };
}

struct FastestRow {
  Issue13Model model;
  int64_t macs = 0;
  std::string problem;     // empty when some candidate was measured
  std::string technique;   // of the fastest candidate
  FastRun best;
  std::string candidates;  // every candidate's outcome, for the notes
};

FastestRow measure_fastest(const Issue13Model& model, bool flash_budget) {
  FastestRow row;
  row.model = model;
  Result<CheckedModel> m = load_checked_model(model.model);
  if (!m) return row.problem = first_line(m.error().format()), row;
  row.macs = ir::count_graph_macs(m->graph);
  for (Technique technique : {Technique::kOrdinary, Technique::kInplace, Technique::kPex}) {
    const std::string name(technique_name(technique));
    std::cerr << "  " << name << "...\n";
    Result<plan::Plan> plan = build_fast_plan(m->graph, technique, kCiBoardRamBytes);
    std::string flash_note = "no flash budget";
    if (plan && flash_budget && model.flash_bytes) {
      // The convolutions' weights widened within the flash budget, as
      // tinyfit compile --flash does (driver/widen_weights.h).
      Result<const cost::CostTable*> table = cost::find_cost_table("cortex-m4");
      Result<driver::WidenedWeights> widened =
          table ? driver::widen_weights_within(m->graph, *plan, **table, *model.flash_bytes)
                : Result<driver::WidenedWeights>(tl::unexpected(table.error()));
      if (!widened) {
        plan = tl::unexpected(widened.error());
      } else {
        flash_note = std::to_string(widened->widened) + " of " + std::to_string(widened->widenable) +
                     " convolutions widened within " + std::to_string(*model.flash_bytes) + " B";
        plan = std::move(widened->plan);
      }
    }
    FastRun run;
    if (!plan) {
      run.problem = first_line(plan.error().format());
    } else {
      run = run_fast_on_board(*m, *plan, "bench/fastest_" + model.name + "_" + name);
    }
    row.candidates += (row.candidates.empty() ? "" : "; ") + name + ": " +
                      (run.problem.empty() ? std::to_string(run.instructions) + " instructions, arena " +
                                                 std::to_string(run.arena_bytes) + " B, .rodata " +
                                                 std::to_string(run.rodata_bytes) + " B (" + flash_note + ")"
                                           : run.problem);
    if (run.problem.empty() && (row.best.instructions == 0 || run.instructions < row.best.instructions)) {
      row.technique = name;
      row.best = std::move(run);
    }
  }
  if (row.best.instructions == 0) row.problem = "no candidate fits: " + row.candidates;
  return row;
}

void print_fastest_table(const std::vector<FastestRow>& rows) {
  std::cout << "| model | MACs | TFLM + CMSIS-NN (instructions) | tinyfit before | tinyfit now | plan (arena B) "
               "| now / CMSIS-NN | now / before | instructions per MAC (CMSIS-NN) | kernel code B |\n"
            << "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|\n";
  for (const FastestRow& row : rows) {
    const Issue13Model& m = row.model;
    std::cout << "| " << m.name << " | " << row.macs << " | " << m.cmsis_nn_instructions << " | "
              << m.tinyfit_before_instructions << " | ";
    if (!row.problem.empty()) {
      std::cout << "not measured: " << row.problem << " ||||||\n";
      continue;
    }
    const auto now = static_cast<double>(row.best.instructions);
    std::cout << row.best.instructions << " | " << row.technique << " (" << row.best.arena_bytes << ") | "
              << format_ratio(now / static_cast<double>(m.cmsis_nn_instructions)) << " | "
              << format_ratio(now / static_cast<double>(m.tinyfit_before_instructions)) << " | "
              << format_fixed(now / static_cast<double>(row.macs), 2) << " ("
              << format_fixed(static_cast<double>(m.cmsis_nn_instructions) / static_cast<double>(row.macs), 2)
              << ") | " << row.best.kernel_code_bytes << " |\n";
  }
  std::cout << "\nCandidates (M4 instructions, arena):\n\n";
  for (const FastestRow& row : rows) std::cout << "- " << row.model.name << ": " << row.candidates << "\n";
}

// PEX's overhead with the fast kernels: smallest-peak PEX over ordinary, both
// with workspaces (issue 13: "PEX today costs 1.18x-1.24x ... goal <= 1.05x").
void print_pex_overhead(const std::vector<CiModel>& models) {
  std::cout << "| model | ordinary arena B | ordinary M4 instructions | pex arena B | pex M4 instructions "
               "| pex / ordinary |\n|---|---:|---:|---:|---:|---:|\n";
  for (const CiModel& model : models) {
    std::cerr << model.name << " (pex overhead)...\n";
    Result<CheckedModel> m = load_checked_model(model.model);
    if (!m) {
      std::cout << "| " << model.name << " | not measured: " << first_line(m.error().format()) << " |||||\n";
      continue;
    }
    FastRun runs[2];
    const Technique techniques[2] = {Technique::kOrdinary, Technique::kPex};
    for (int i = 0; i < 2; ++i) {
      Result<plan::Plan> plan = build_fast_plan(m->graph, techniques[i], 0);
      if (!plan) {
        runs[i].problem = first_line(plan.error().format());
        continue;
      }
      const std::string technique(technique_name(techniques[i]));
      runs[i] = run_fast_on_board(*m, *plan, "bench/overhead_" + model.name + "_" + technique);
    }
    std::cout << "| " << model.name << " | ";
    for (const FastRun& run : runs) {
      std::cout << run.arena_bytes << " | " << (run.problem.empty() ? std::to_string(run.instructions) : run.problem)
                << " | ";
    }
    const bool both = runs[0].problem.empty() && runs[1].problem.empty();
    std::cout << (both ? format_ratio(static_cast<double>(runs[1].instructions) /
                                      static_cast<double>(runs[0].instructions))
                       : "-")
              << " |\n";
  }
}

}  // namespace

int print_fast_kernel_tables(const std::string& only, bool flash_budgets) {
  std::vector<FastestRow> fastest;
  for (const Issue13Model& model : list_issue13_models()) {
    if (!only.empty() && model.name != only) continue;
    std::cerr << model.name << "...\n";
    fastest.push_back(measure_fastest(model, flash_budgets));
  }
  std::vector<CiModel> overhead_models;
  for (const CiModel& model : list_ci_models()) {
    if (only.empty() || model.name == only) overhead_models.push_back(model);
  }
  if (!fastest.empty()) {
    std::cout << "## Issue 13: the fastest plan that fits 320 KiB against TFLite Micro + CMSIS-NN\n\n";
    print_fastest_table(fastest);
    std::cout << "\n";
  }
  if (!overhead_models.empty()) {
    std::cout << "## Issue 13: partial execution's overhead with the fast kernels\n\n";
    print_pex_overhead(overhead_models);
    std::cout << "\n";
  }
  return static_cast<int>(fastest.size() + overhead_models.size());
}

}  // namespace tinyfit::mcu
