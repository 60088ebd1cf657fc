// `tinyfit compile MODEL`: the best plan under the budget, verified by running
// it, optionally emitted as C. Thin: parse the flags, call the driver's
// pipeline (src/driver/compile_pipeline.cc), print or write what it returns.
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "commands.h"
#include "json_text.h"
#include "codegen/emit_devices.h"
#include "compile_device_rows_output.h"
#include "compile_devices_output.h"
#include "driver/compile_device_rows.h"
#include "driver/device_row_programs.h"
#include "driver/device_programs.h"
#include "compile_output.h"
#include "driver/compile_pipeline.h"
#include "model_option.h"
#include "partition/motes_search.h"
#include "plan/placement.h"
#include "plan/print_plan.h"
#include "size_option.h"

namespace tinyfit::tools {
namespace {

struct CompileCliOptions {
  ModelOption model;
  int64_t sram_bytes = -1;  // -1: no --sram
  int64_t flash_bytes = -1;  // -1: no --flash
  std::string techniques = "order,inplace,pex,motes,overlap";
  std::string latency_budget = "1.05";  // driver::CompileOptions::latency_budget says why
  std::string order = "best";
  std::string placement = "best";
  std::string target = "cortex-m4";
  int accumulator_bits = 32;
  double time_limit_seconds = 60.0;
  bool json = false;
  bool dump_plan = false;
  bool no_verify = false;
  std::string svg_path;
  std::string emit;
  std::string out_dir;
  std::string emit_name;
  uint32_t seed = 12345;  // shared/models/golden/README.md: x_0 = 12345, as `tinyfit run`
  DeviceCliOptions devices;
  // Flags given explicitly (CLI11 counts), for --devices' not-built-yet messages.
  std::vector<std::string> single_device_flags;
};

// A progress line on a terminal only: logs and pipes stay clean.
std::function<void(std::string_view, double)> make_terminal_progress() {
  if (!isatty(STDERR_FILENO)) return {};
  return [](std::string_view stage, double fraction) {
    std::fprintf(stderr, "\r%.*s: %3d%%", static_cast<int>(stage.size()), stage.data(),
                 static_cast<int>(fraction * 100.0));
    if (fraction >= 1.0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(stage.size()) + 6, "");
  };
}

// --partition rows: a line on standard error per part compiled, with the
// seconds since the start (a NASNet compile takes minutes).
std::function<void(const std::string&)> make_rows_progress() {
  const auto start = std::chrono::steady_clock::now();
  return [start](const std::string& line) {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "rows [%.0f s]: %s\n", seconds, line.c_str());
  };
}

Status write_text_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  file << text;
  file.close();
  if (!file) {
    Diag diag;
    diag.file = path;
    diag.message = "cannot write the file";
    return tl::unexpected(diag);
  }
  return {};
}

// --latency-budget D (a ratio >= 1: predicted latency over ordinary's) or none.
Result<double> parse_latency_budget(const std::string& text) {
  if (text == "none") return partition::kNoLatencyBudget;
  double budget = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), budget);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(budget) || budget < 1.0) {
    return fail("--latency-budget '" + text + "': use a ratio >= 1 (1.05: at most 5% slower than ordinary) or none",
                ExitCode::kBadCommandLine);
  }
  return budget;
}

Result<driver::CompileOptions> make_compile_options(const CompileCliOptions& cli) {
  driver::CompileOptions options;
  TINYFIT_ASSIGN_OR_RETURN(options.techniques, driver::parse_technique_list(cli.techniques));
  if (!plan::find_placement_algorithm(cli.placement)) {
    std::string known;
    for (const plan::PlacementAlgorithm& a : plan::list_placement_algorithms()) {
      known += (known.empty() ? "" : ", ") + std::string(a.name);
    }
    return fail("--placement: unknown placement '" + cli.placement + "' (use " + known + ")",
                ExitCode::kBadCommandLine);
  }
  TINYFIT_ASSIGN_OR_RETURN(options.latency_budget, parse_latency_budget(cli.latency_budget));
  if (cli.sram_bytes >= 0) options.sram_bytes = cli.sram_bytes;
  if (cli.flash_bytes >= 0) options.flash_bytes = cli.flash_bytes;
  options.order = cli.order;
  options.placement = cli.placement;
  options.target = cli.target;
  options.accumulator_bits = cli.accumulator_bits;
  options.execute = !cli.no_verify;
  options.seed = cli.seed;
  options.emit_dir = cli.out_dir;
  options.emit_name = cli.emit_name;
  options.progress = make_terminal_progress();
  return options;
}

Status not_built_on_devices(const std::string& what) {
  return fail("--devices: " + what + " is not built yet (issue 14)", ExitCode::kBadCommandLine);
}

// emit-c per device (codegen/emit_devices.h): one folder per device, the link
// layer in link/. The symbols' prefix: --name, else the model's name.
Status emit_device_c(const std::vector<codegen::DeviceProgram>& programs, const CompileCliOptions& cli,
                     const ir::Graph& graph) {
  codegen::EmitOptions emit_options;
  emit_options.name = cli.emit_name.empty() ? graph.name : cli.emit_name;
  TINYFIT_ASSIGN_OR_RETURN(const codegen::EmittedDevices emitted, codegen::emit_device_models(programs, emit_options));
  TINYFIT_RETURN_IF_ERROR(codegen::write_emitted_devices(emitted, cli.out_dir));
  if (!cli.json) {
    std::cout << "C code for " << emitted.devices.size() << " devices written to " << cli.out_dir << ": device0/";
    if (emitted.devices.size() > 1) std::cout << " .. device" << emitted.devices.size() - 1 << "/";
    std::cout << " (model.c, model.h, tinyfit_link.h each), link/ (tinyfit_link.h and its MPI and UART\n"
              << "implementations), README.md; " << emitted.link_bytes << " bytes over the link per inference\n";
  }
  return {};
}

// --devices N --partition rows: bands of rows composed with the single-device
// techniques (driver/compile_device_rows.h); --techniques, --latency-budget,
// --order, --placement and --target apply to every part.
Status run_compile_device_rows(const CompileCliOptions& cli) {
  if (cli.sram_bytes >= 0) return fail("--devices: give the SRAM per device with --device-sram", ExitCode::kBadCommandLine);
  if (cli.flash_bytes >= 0) {
    return fail("--devices: give the flash per device with --device-flash", ExitCode::kBadCommandLine);
  }
  if (!cli.svg_path.empty()) return not_built_on_devices("the per-device memory chart (--svg)");
  if (cli.dump_plan) return not_built_on_devices("--dump-plan of a device plan");
  driver::RowsCompileOptions options;
  TINYFIT_ASSIGN_OR_RETURN(options.single, make_compile_options(cli));
  TINYFIT_ASSIGN_OR_RETURN(options.limits, parse_device_limits(cli.devices));
  options.execute = !cli.no_verify;
  options.device_mhz = cli.devices.device_mhz;
  TINYFIT_ASSIGN_OR_RETURN(const ir::Graph graph, load_model(cli.model));
  options.single.deadline = Deadline(std::chrono::duration<double>(cli.time_limit_seconds));
  options.progress = make_rows_progress();
  TINYFIT_ASSIGN_OR_RETURN(const driver::RowsCompileReport report, driver::compile_device_rows(graph, options));
  if (cli.json) {
    std::cout << format_json(make_device_rows_json(graph, report)) << std::endl;
  } else {
    print_device_rows_text(std::cout, graph, report);
  }
  if (!report.fits()) {
    Diag diag;
    diag.code = ExitCode::kDoesNotFit;
    diag.file = report.model;
    diag.message = driver::describe_rows_shortfall(report);
    return tl::unexpected(diag);
  }
  if (cli.emit == "c") {
    // Device d runs its band and sends its rows to device 0, which runs the
    // tail on them (driver/device_row_programs.h).
    TINYFIT_ASSIGN_OR_RETURN(const driver::RowPrograms programs, driver::make_row_programs(report));
    return emit_device_c(programs.programs(), cli, graph);
  }
  return {};
}

// --devices N: the multi-device pipeline (driver/compile_devices.h). What it
// does not build yet says so (exit 2) instead of ignoring a flag.
Status run_compile_on_devices(const CompileCliOptions& cli) {
  if (cli.devices.partition == "rows") return run_compile_device_rows(cli);
  auto not_built = not_built_on_devices;
  if (cli.devices.partition == "search" && cli.devices.link_bytes_per_second <= 0) {
    return fail("--partition search needs --link-bytes-per-second (the link's rate, e.g. 125000 for UART at 1 Mbit/s)",
                ExitCode::kBadCommandLine);
  }
  if (!cli.svg_path.empty()) return not_built("the per-device memory chart (--svg)");
  if (cli.dump_plan) return not_built("--dump-plan of a device plan");
  for (const std::string& flag : cli.single_device_flags) {
    if (flag == "--sram") return fail("--devices: give the SRAM per device with --device-sram", ExitCode::kBadCommandLine);
    if (flag == "--flash") {
      return fail("--devices: give the flash per device with --device-flash", ExitCode::kBadCommandLine);
    }
    return fail("--devices: " + flag + " applies to --partition rows (the partitions by operator run "
                "every part whole)", ExitCode::kBadCommandLine);
  }
  driver::DeviceCompileOptions options;
  TINYFIT_ASSIGN_OR_RETURN(options.limits, parse_device_limits(cli.devices));
  options.execute = !cli.no_verify;
  options.seed = cli.seed;
  options.partition = cli.devices.partition;
  options.device_mhz = cli.devices.device_mhz;
  TINYFIT_ASSIGN_OR_RETURN(const ir::Graph graph, load_model(cli.model));
  TINYFIT_ASSIGN_OR_RETURN(const driver::DeviceCompileReport report, driver::compile_on_devices(graph, options));
  if (cli.json) {
    std::cout << format_json(make_devices_json(graph, report)) << std::endl;
  } else {
    print_devices_text(std::cout, graph, report);
  }
  if (!report.fits()) {
    Diag diag;
    diag.code = ExitCode::kDoesNotFit;
    diag.file = report.model;
    diag.message = driver::describe_device_shortfall(report);
    return tl::unexpected(diag);
  }
  if (cli.emit == "c") {
    TINYFIT_ASSIGN_OR_RETURN(const driver::DevicePrograms programs, driver::make_device_programs(graph, report.plan));
    return emit_device_c(programs.programs(graph), cli, graph);
  }
  return {};
}

Status run_compile(const CompileCliOptions& cli) {
  if (cli.devices.devices > 0) return run_compile_on_devices(cli);
  // Flags first: a typo costs no model import.
  TINYFIT_ASSIGN_OR_RETURN(driver::CompileOptions options, make_compile_options(cli));
  TINYFIT_ASSIGN_OR_RETURN(const ir::Graph graph, load_model(cli.model));
  // --time-limit bounds the compile, not the import: it starts after it.
  options.deadline = Deadline(std::chrono::duration<double>(cli.time_limit_seconds));
  TINYFIT_ASSIGN_OR_RETURN(const driver::CompileReport report, driver::compile_model(graph, options));
  // The chart is most useful when the model does not fit: write it first.
  if (!cli.svg_path.empty()) {
    TINYFIT_RETURN_IF_ERROR(write_text_file(
        cli.svg_path, driver::render_memory_timeline_svg(make_compile_timeline(graph, report))));
  }
  if (!report.fits()) {
    Diag diag;
    diag.code = ExitCode::kDoesNotFit;
    diag.file = report.model;
    diag.message = driver::describe_shortfall(report);
    return tl::unexpected(diag);
  }
  if (cli.dump_plan) plan::print_plan(std::cout, graph, report.result().plan);
  if (cli.json) {
    std::cout << format_json(make_compile_json(report, cli.svg_path)) << std::endl;
  } else {
    print_compile_text(std::cout, report, cli.svg_path);
  }
  return {};
}

}  // namespace

CommandAction setup_compile_command(CLI::App& app) {
  auto cli = std::make_shared<CompileCliOptions>();
  add_model_option(app, cli->model);
  add_size_option(app, "--sram", cli->sram_bytes, "SRAM budget for the arena");
  add_size_option(app, "--flash", cli->flash_bytes,
                  "flash budget for the program's const data (weights and records, not kernel code): it must fit, "
                  "and convolutions keep int16 weights (faster) within it; without it none do");
  app.add_option("--techniques", cli->techniques,
                 "comma list of order, inplace, pex, motes, overlap (or none); the ordinary plan is always built")
      ->capture_default_str();
  app.add_option("--latency-budget", cli->latency_budget,
                 "motes: predicted latency over ordinary execution's a plan may have (MOTES's delta), "
                 "or none for the smallest memory")
      ->capture_default_str();
  app.add_option("--order", cli->order, "operator order: given, rpo, exact, hierarchical or best")
      ->check(CLI::IsMember({"given", "rpo", "exact", "hierarchical", "best"}))
      ->capture_default_str();
  app.add_option("--placement", cli->placement,
                 "arena placement: greedy-by-size, greedy-by-conflicts, best-fit, hill-climb, sweep-search, "
                 "exact or best")
      ->capture_default_str();
  app.add_option("--target", cli->target,
                 "the microcontroller (or host) whose measured cost table predicts latency: cortex-m4, "
                 "cortex-m7 or host")
      ->check(CLI::IsMember({"cortex-m4", "cortex-m7", "host"}))
      ->capture_default_str();
  app.add_option("--accumulator-bits", cli->accumulator_bits,
                 "PEX accumulator precision: 32 (exact), 16 or 8 (PEX 3.4, not exact)")
      ->check(CLI::IsMember({32, 16, 8}))
      ->capture_default_str();
  app.add_option("--time-limit", cli->time_limit_seconds,
                 "seconds for the compile after the import: the searches share nine tenths, each an equal part of "
                 "what is left (best found so far after); the rest is kept for lowering, verifying and emitting")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  CLI::Option* json = app.add_flag("--json", cli->json, "print one JSON object instead of tables");
  app.add_flag("--dump-plan", cli->dump_plan, "print the chosen plan: buffers, steps, loops, calls and views")
      ->excludes(json);
  app.add_option("--svg", cli->svg_path, "write a chart of live memory per step (ordinary and chosen plan)")
      ->type_name("FILE");
  app.add_flag("--no-verify", cli->no_verify, "do not execute the plan against the reference (verified: false)");
  CLI::Option* emit = app.add_option("--emit", cli->emit, "emit the chosen plan as source code: c")
                          ->check(CLI::IsMember({"c"}));
  CLI::Option* out = app.add_option("--out", cli->out_dir, "directory for --emit")->type_name("DIR");
  CLI::Option* name = app.add_option("--name", cli->emit_name,
                                      "C symbol prefix: tinyfit_<name>_run (default: the model file's stem or zoo name)");
  emit->needs(out);
  out->needs(emit);
  name->needs(emit);
  app.add_option("--seed", cli->seed, "seed (x_0) of the deterministic input the plan is checked on")
      ->capture_default_str();
  CLI::Option* devices = app.add_option("--devices", cli->devices.devices,
                                        "split the model across N devices (MemoriaNova): cout/fmh/len parts and "
                                        "transfers, verified together")
                             ->check(CLI::Range(1, 64));
  app.add_option("--device-sram", cli->devices.sram_list, "SRAM per device: one size or one per device (128KiB,96KiB)")
      ->type_name("SIZES")
      ->needs(devices);
  app.add_option("--device-flash", cli->devices.flash_list, "flash per device (weights): one size or one per device")
      ->type_name("SIZES")
      ->needs(devices);
  app.add_option("--link-bytes-per-second", cli->devices.link_bytes_per_second,
                 "link rate between devices, for the transfer time (e.g. 125000 for UART at 1 Mbit/s)")
      ->needs(devices);
  app.add_option("--device-mhz", cli->devices.device_mhz,
                 "devices' clock for the predicted latency (cortex-m4 instructions, one per cycle)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str()
      ->needs(devices);
  app.add_option("--partition", cli->devices.partition,
                 "devices: k1k2 (MemoriaNova's rule), min-memory (every operator split by its smallest "
                 "part) or search (the predicted latency's minimum under the devices' limits; needs "
                 "--link-bytes-per-second), or rows (the first operators by bands of rows on every device, "
                 "every part compiled with the single-device techniques)")
      ->check(CLI::IsMember({"k1k2", "min-memory", "search", "rows"}))
      ->capture_default_str()
      ->needs(devices);
  return [cli, &app] {
    for (const char* flag : {"--sram", "--flash", "--techniques", "--latency-budget", "--order", "--placement", "--target",
                             "--accumulator-bits"}) {
      if (app.count(flag) > 0) cli->single_device_flags.push_back(flag);
    }
    return run_compile(*cli);
  };
}

}  // namespace tinyfit::tools
