// tinyfit_bench_cost_tables: regenerates the latency model's tables
// (src/cost/tables/<target>.json, DESIGN.md "Cost"). It builds the probe
// programs (cost_probes.h), counts each one's work as the predictor will
// (exec/plan_work.h), measures each one's retired instructions per target
// (probe_firmware.h: Cortex-M4 and M7 under QEMU, the host under
// callgrind), fits the coefficients (cost/fit_cost_table.h) and writes the
// tables, then prints per kernel how well the fit reproduces its probes and
// which kernels of runtime/kernels.def no probe reached.
//
//   cmake --build build --target tinyfit_bench_cost_tables
//   ./build/bench/tinyfit_bench_cost_tables            # all three targets
//   ./build/bench/tinyfit_bench_cost_tables --kernels K1,K2   # only those rows
//
// --kernels: measures only the probes that call one of the named kernels
// (kernels added or changed since the tables were fitted), replaces those
// probes in the existing tables (same names) or adds them, and refits the
// named rows alone (cost/fit_cost_table.h refit_kernel_rows): every other row
// and the run coefficients stay as they were measured.
//
// Exit codes: 0 tables written; 2 bad command line or a missing tool; 1 a
// probe could not be measured (nothing is written then).
#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "cost/fit_cost_table.h"
#include "cost_probes.h"
#include "probe_firmware.h"

namespace tinyfit::bench {
namespace {

struct TargetInfo {
  std::string name;
  mcu::Target target;
  std::string description;
};

const std::vector<TargetInfo>& list_targets() {
  static const std::vector<TargetInfo> kTargets = {
      {"cortex-m4", mcu::Target::kCortexM4,
       "QEMU mps2-an386 (Cortex-M4F), arm-none-eabi-gcc -mcpu=cortex-m4 -mfloat-abi=hard -O2; retired "
       "instructions from SysTick under -icount shift=0 (40 per tick)"},
      {"cortex-m7", mcu::Target::kCortexM7,
       "QEMU mps2-an500 (Cortex-M7), arm-none-eabi-gcc -mcpu=cortex-m7 -mfloat-abi=hard -O2; retired "
       "instructions from SysTick under -icount shift=0 (40 per tick)"},
      {"host", mcu::Target::kHost,
       "host C compiler -O2; instructions of each run function (inclusive) under valgrind --tool=callgrind"},
  };
  return kTargets;
}

std::vector<std::string> list_defined_kernels() {
  std::ifstream def(std::string(TINYFIT_SOURCE_DIR) + "/runtime/kernels.def");
  std::vector<std::string> names;
  for (std::string line; std::getline(def, line);) {
    static constexpr std::string_view kRow = "TINYFIT_KERNEL(";
    if (!line.starts_with(kRow)) continue;
    names.push_back(line.substr(kRow.size(), line.find(',') - kRow.size()));
  }
  return names;
}

std::string describe_generation(int seeds) {
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  const mcu::CommandResult commit =
      mcu::run_command("git -C '" + std::string(TINYFIT_SOURCE_DIR) + "' rev-parse --short HEAD");
  std::string tree = commit.exit_code == 0 ? commit.output.substr(0, commit.output.find('\n')) : "unknown";
  return "tinyfit_bench_cost_tables --seeds " + std::to_string(seeds) + ", " + date + ", tree at commit " + tree;
}

void print_fit(const cost::CostTable& table) {
  std::cout << "\n## " << table.target << ": " << table.probes.size() << " probes\n\n"
            << "| kernel | probes | rms error | max error |\n|---|---:|---:|---:|\n";
  for (const auto& [kernel, k] : table.kernels) {
    std::cout << "| " << kernel << " | " << k.probes << " | " << std::fixed << std::setprecision(1)
              << 100 * k.rms_error << "% | " << 100 * k.max_error << "% |\n";
  }
  std::cout << "\nrun coefficients:";
  for (int f = 0; f < cost::kRunFeatureCount; ++f) {
    std::cout << " " << cost::run_feature_name(static_cast<cost::RunFeature>(f)) << " " << std::setprecision(2)
              << table.run_coefficients[static_cast<size_t>(f)];
  }
  std::cout << "\nunmeasured kernels:";
  for (const std::string& k : table.unmeasured) std::cout << " " << k;
  std::cout << (table.unmeasured.empty() ? " none\n" : "\n");
}

int run(int argc, char** argv) {
  CLI::App app{"tinyfit_bench_cost_tables: measure every runtime kernel and write the cost tables"};
  std::vector<std::string> targets = {"cortex-m4", "cortex-m7", "host"};
  std::string out_dir = std::string(TINYFIT_SOURCE_DIR) + "/src/cost/tables";
  std::string work_dir = std::string(TINYFIT_BINARY_DIR) + "/bench/cost_probes";
  int seeds = 2;
  int jobs = 2;
  std::vector<std::string> only_kernels;
  app.add_option("--targets", targets, "cortex-m4, cortex-m7, host")->delimiter(',')->capture_default_str();
  app.add_option("--out", out_dir, "where the tables are written")->capture_default_str();
  app.add_option("--work-dir", work_dir, "where the probe firmware is built")->capture_default_str();
  app.add_option("--seeds", seeds, "programs per probe maker, in units of its base count")
      ->check(CLI::Range(1, 50))->capture_default_str();
  app.add_option("--kernels", only_kernels, "refit only these kernels' rows (runtime/kernels.def names)")
      ->delimiter(',');
  app.add_option("--jobs", jobs, "images built and run at once")->check(CLI::Range(1, 16))->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  std::vector<const TargetInfo*> chosen;
  for (const std::string& name : targets) {
    const auto found = std::find_if(list_targets().begin(), list_targets().end(),
                                    [&](const TargetInfo& t) { return t.name == name; });
    if (found == list_targets().end()) {
      std::cerr << "tinyfit_bench_cost_tables: error: unknown target '" << name << "'\n";
      return 2;
    }
    if (std::string missing = mcu::find_missing_tools(found->target); !missing.empty()) {
      std::cerr << "tinyfit_bench_cost_tables: error: " << missing << " is not installed\n";
      return 2;
    }
    chosen.push_back(&*found);
  }

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> skipped;
  std::vector<ProbeProgram> programs = make_probe_programs(0, seeds, skipped);
  if (!only_kernels.empty()) {
    std::erase_if(programs, [&](const ProbeProgram& program) {
      return std::none_of(only_kernels.begin(), only_kernels.end(),
                          [&](const std::string& kernel) { return program.work.kernels.contains(kernel); });
    });
  }
  std::cerr << programs.size() << " probe programs (" << skipped.size() << " skipped)\n";
  for (const std::string& s : skipped) std::cerr << "  skipped " << s << "\n";

  const std::string generated = describe_generation(seeds);
  for (const TargetInfo* target : chosen) {
    const auto target_start = std::chrono::steady_clock::now();
    std::filesystem::create_directories(work_dir + "/" + target->name);
    const ProbeMeasurements measured =
        measure_probe_programs(programs, target->target, work_dir + "/" + target->name, jobs);
    for (const std::string& problem : measured.problems) std::cerr << "  " << target->name << ": " << problem << "\n";
    const std::string path = out_dir + "/" + target->name + ".json";
    cost::CostTable table;
    if (!only_kernels.empty()) {
      std::stringstream text;
      text << std::ifstream(path, std::ios::binary).rdbuf();
      Result<cost::CostTable> existing = cost::parse_cost_table(text.str(), path);
      if (!existing) {
        std::cerr << "tinyfit_bench_cost_tables: error: " << existing.error().message << "\n";
        return 2;
      }
      table = std::move(*existing);
    }
    table.target = target->name;
    table.description = target->description;
    if (only_kernels.empty()) table.generated = generated;
    size_t unmeasured = 0;
    std::vector<cost::Probe> fresh;
    for (size_t i = 0; i < programs.size(); ++i) {
      if (measured.instructions[i] <= 0) {
        ++unmeasured;
        continue;
      }
      fresh.push_back({programs[i].name, programs[i].work, measured.instructions[i]});
    }
    cost::replace_kernel_probes(table, only_kernels, std::move(fresh));
    if (unmeasured > 0 || !measured.problems.empty()) {
      std::cerr << "tinyfit_bench_cost_tables: error: " << target->name << ": " << unmeasured
                << " probes not measured; no table written\n";
      return 1;
    }
    if (only_kernels.empty()) {
      cost::fit_cost_table(table);
    } else {
      cost::refit_kernel_rows(table, only_kernels);
      for (const std::string& kernel : only_kernels) {
        if (auto row = table.kernels.find(kernel); row != table.kernels.end()) row->second.refitted = generated;
      }
    }
    table.unmeasured.clear();
    for (const std::string& kernel : list_defined_kernels()) {
      if (!table.kernels.contains(kernel)) table.unmeasured.push_back(kernel);
    }
    std::ofstream(path, std::ios::binary) << cost::format_cost_table(table);
    print_fit(table);
    std::cerr << target->name << ": " << path << " written in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - target_start).count() << " s\n";
  }
  std::cerr << "total " << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
  return 0;
}

}  // namespace
}  // namespace tinyfit::bench

int main(int argc, char** argv) { return tinyfit::bench::run(argc, argv); }
