// tinyfit_bench_devices_rows: `--partition rows` plans run as emitted C on
// linked emulated devices (issue 14 §5-§6, docs/benchmarks/devices.md):
// the model compiled by driver/compile_device_rows.h, emitted per device
// (driver/device_row_programs.h), each device given its rows of the input
// (with their halo), and run
//  - as MPI processes (tinyfit_link_mpi.c), and
//  - as QEMU mps2-an386 boards (Cortex-M4) whose UARTs meet on loopback
//    sockets (tinyfit_link_cmsdk_uart.c), counting each board's retired
//    instructions (QEMU -icount, SysTick), those inside its link calls, and
//    those outside them before each link call;
// the output on device 0 compared with the reference interpreter's on the
// whole model, byte for byte, on both. One device: the fastest plan of the
// same techniques with unlimited SRAM (the compile's own baseline), emitted
// and run on one board.
//
// The measured latency puts the counts together as the devices run, stage
// by stage: every device's band at once, then the stage's link phase (the
// gather on device 0, and before a further stage the scatter from it), ...,
// then device 0's tail:
//   sum over the segments between link phases of (the slowest device's
//   instructions outside link calls in that segment)
//   + link bytes / link rate, at --device-mhz (one instruction per cycle).
// Each board counts its instructions outside link calls before every link
// call; a link phase is a run of link calls (and local copies) between two
// plan steps of the device's program, so its segments follow from the counts.
// The time QEMU spends inside the link calls is its sockets' and polling's,
// not the link's rate, so the link is counted by bytes (as the latency test
// does). Link rates: SPI at 10 Mbit/s (1,250,000 bytes/s) and UART at 1
// Mbit/s (125,000 bytes/s). One run; minutes per model. Not a test.
//
// Usage: tinyfit_bench_devices_rows --model MODEL --devices N --device-sram SIZE
//          [--latency-budget D] [--device-mhz F]
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>

#include "checked_model.h"
#include "codegen/emit_devices.h"
#include "driver/compile_device_rows.h"
#include "driver/device_row_programs.h"
#include "emitted_build.h"
#include "exec/golden_inputs.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "import/import_model.h"
#include "linked_devices.h"
#include "support/byte_size.h"
#include "toolchain.h"

namespace tinyfit::mcu {
namespace {

constexpr int64_t kOneBoardRamBytes = int64_t{4} << 20;  // mps2's whole SRAM: the fastest plan's arena
constexpr int kBoardRunSeconds = 1800;                    // a whole network on a board takes minutes
constexpr int64_t kSpiBytesPerSecond = 1250000;
constexpr int64_t kUartBytesPerSecond = 125000;

// Prints the error of a failed result.
template <typename T>
bool failed(const Result<T>& result) {
  if (!result) std::cerr << result.error().format() << "\n";
  return !result;
}

std::string fmt(uint64_t value) { return format_thousands(static_cast<int64_t>(value)); }

std::string format_ms(double seconds) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << seconds * 1e3;
  return out.str();
}

// Retired Cortex-M4 instructions of one invoke of the plan's emitted C on
// one board; its outputs checked against `expected`.
Result<uint64_t> measure_one_board(const ir::Graph& graph, const plan::Plan& plan,
                                   const std::vector<exec::TensorData>& inputs,
                                   const std::vector<exec::TensorData>& expected) {
  TINYFIT_ASSIGN_OR_RETURN(const EmittedBuild build, emit_and_build(graph, plan, inputs, expected, Target::kCortexM4,
                                                                    kOneBoardRamBytes, "devices_rows/one_device"));
  TINYFIT_ASSIGN_OR_RETURN(const ProgramReport report, run_program(Target::kCortexM4, build.executable));
  for (size_t o = 0; o < expected.size(); ++o) {
    if (!describe_byte_difference(report.outputs.at(o), expected[o]).empty()) {
      return fail("one board's output " + std::to_string(o) + " differs from the reference");
    }
  }
  return report.instructions;
}

// The link calls in each link phase of a device's program: a run of link
// transfers and local copies between two plan steps.
std::vector<size_t> count_phase_calls(const std::vector<codegen::DeviceStep>& steps) {
  std::vector<size_t> phases;
  bool in_phase = false;
  for (const codegen::DeviceStep& step : steps) {
    if (std::holds_alternative<codegen::PlanStepRef>(step)) {
      in_phase = false;
    } else if (std::holds_alternative<codegen::LinkTransfer>(step)) {
      if (!in_phase) phases.push_back(0);
      in_phase = true;
      ++phases.back();
    }
  }
  return phases;
}

// A board's instructions outside link calls before its first link phase,
// between each two, and after the last, from its counts before every link call.
Result<std::vector<uint64_t>> split_compute(const DeviceRunReport& device, const std::vector<size_t>& phases) {
  const std::vector<uint64_t>& marks = device.compute_before_link_calls;
  size_t calls = 0;
  for (size_t n : phases) calls += n;
  if (marks.size() != calls) {
    return fail("a board counted " + std::to_string(marks.size()) + " link calls, its program makes " +
                std::to_string(calls));
  }
  std::vector<uint64_t> segments;
  uint64_t after = 0;  // compute before the previous phase's last call
  size_t call = 0;
  for (size_t n : phases) {
    segments.push_back(marks[call] - after);
    call += n;
    after = marks[call - 1];
  }
  segments.push_back(device.compute_instructions() - after);
  return segments;
}

// Runs the emitted devices with `kind`; the bytes each sent and the output
// on device 0 checked. "equal" or what differs.
Result<LinkedRunReport> run_checked(const codegen::EmittedDevices& emitted,
                                    const std::vector<std::vector<exec::TensorData>>& inputs,
                                    const std::vector<exec::TensorData>& expected, LinkKind kind, std::string& verdict) {
  TINYFIT_ASSIGN_OR_RETURN(LinkedRunReport run,
                           run_linked_devices(emitted, inputs,
                                              program_directory("devices_rows/" + std::string(link_kind_name(kind))),
                                              kind, kBoardRunSeconds));
  verdict = "equal";
  for (size_t d = 0; d < run.devices.size(); ++d) {
    const DeviceRunReport& device = run.devices[d];
    if (device.status != 0 || static_cast<int64_t>(device.bytes_sent) != emitted.devices[d].link_send_bytes ||
        static_cast<int64_t>(device.bytes_received) != emitted.devices[d].link_receive_bytes) {
      verdict = "device " + std::to_string(d) + ": status " + std::to_string(device.status) + ", sent " +
                fmt(device.bytes_sent) + ", received " + fmt(device.bytes_received);
    }
  }
  for (size_t o = 0; o < expected.size(); ++o) {
    if (!run.devices[0].outputs.contains(o)) {
      verdict = "no output " + std::to_string(o);
    } else if (const std::string diff = describe_byte_difference(run.devices[0].outputs.at(o), expected[o]);
               !diff.empty()) {
      verdict = "output " + std::to_string(o) + " differs: " + diff;
    }
  }
  return run;
}

int run(int argc, char** argv) {
  CLI::App app{"tinyfit_bench_devices_rows: --partition rows plans as linked MPI processes and QEMU boards"};
  std::string model, sram_text;
  int devices = 2;
  double latency_budget = 1.05, device_mhz = 100, time_limit_seconds = 600;
  app.add_option("--model", model, "path or zoo:NAME")->required();
  app.add_option("--devices", devices, "device count")->required()->check(CLI::Range(2, 8));
  app.add_option("--device-sram", sram_text, "SRAM of every device (128KiB)")->required();
  app.add_option("--latency-budget", latency_budget, "MOTES's delta for every part");
  app.add_option("--device-mhz", device_mhz, "instructions per microsecond");
  app.add_option("--time-limit", time_limit_seconds,
                 "seconds for the searches of every part (best found so far after)");
  CLI11_PARSE(app, argc, argv);
  for (LinkKind kind : {LinkKind::kMpi, LinkKind::kUart}) {
    if (const std::string missing = find_missing_link_tools(kind); !missing.empty()) {
      std::cerr << "tinyfit_bench_devices_rows: " << missing << " is not installed\n";
      return 2;
    }
  }
  Result<int64_t> sram = parse_byte_size(sram_text);
  if (failed(sram)) return 2;
  Result<ir::Graph> graph = import::import_model(model);
  if (failed(graph)) return 1;

  driver::RowsCompileOptions options;
  options.limits.sram_bytes.assign(static_cast<size_t>(devices), *sram);
  options.limits.link_bytes_per_second = kSpiBytesPerSecond;
  options.single.latency_budget = latency_budget;
  options.device_mhz = device_mhz;
  options.single.deadline = Deadline(std::chrono::duration<double>(time_limit_seconds));
  const auto start = std::chrono::steady_clock::now();
  options.progress = [start](const std::string& line) {
    const auto elapsed = std::chrono::steady_clock::now() - start;
    std::cerr << "rows [" << std::chrono::duration_cast<std::chrono::seconds>(elapsed).count() << " s]: " << line
              << std::endl;
  };
  Result<driver::RowsCompileReport> report = driver::compile_device_rows(*graph, options);
  if (failed(report)) return 1;
  if (!report->fits()) {
    std::cout << model << ": " << driver::describe_rows_shortfall(*report) << "\n";
    return 3;
  }
  Result<driver::RowPrograms> programs = driver::make_row_programs(*report);
  if (failed(programs)) return 1;
  Result<codegen::EmittedDevices> emitted = codegen::emit_device_models(programs->programs(), {});
  if (failed(emitted)) return 1;

  Result<std::vector<exec::TensorData>> inputs = exec::make_golden_inputs(*graph, options.single.seed);
  if (failed(inputs)) return 1;
  Result<std::vector<exec::TensorData>> expected = exec::run_reference(*graph, *inputs);
  if (failed(expected)) return 1;
  const std::vector<std::vector<exec::TensorData>> band_inputs = driver::crop_band_inputs(*graph, *report, *inputs);

  std::string mpi_verdict, uart_verdict;
  Result<LinkedRunReport> mpi = run_checked(*emitted, band_inputs, *expected, LinkKind::kMpi, mpi_verdict);
  if (failed(mpi)) return 1;
  Result<LinkedRunReport> boards = run_checked(*emitted, band_inputs, *expected, LinkKind::kUart, uart_verdict);
  if (failed(boards)) return 1;

  // One device: the compile's baseline, the fastest plan with unlimited SRAM.
  driver::CompileOptions one = options.single;
  one.sram_bytes = INT64_MAX;
  one.execute = false;
  Result<driver::CompileReport> alone = driver::compile_model(*graph, one);
  if (failed(alone)) return 1;
  Result<uint64_t> one_board = measure_one_board(*graph, alone->result().plan, *inputs, *expected);
  if (failed(one_board)) return 1;

  std::vector<std::vector<uint64_t>> segments;  // per device
  for (size_t d = 0; d < boards->devices.size(); ++d) {
    Result<std::vector<uint64_t>> split = split_compute(boards->devices[d], count_phase_calls(programs->steps[d]));
    if (failed(split)) return 1;
    segments.push_back(std::move(*split));
  }
  uint64_t compute = 0;  // sum over segments of the slowest device's
  for (size_t k = 0; k < segments.front().size(); ++k) {
    uint64_t slowest = 0;
    for (const std::vector<uint64_t>& device : segments) slowest = std::max(slowest, device.at(k));
    compute += slowest;
  }
  const std::string name = model.substr(model.find_last_of('/') + 1);
  std::cout << "### " << name << " on " << devices << " x " << sram_text << " (--partition rows, cut after "
            << report->head_nodes << " operators, " << report->count_stages() << " stage(s) of bands)\n\n"
            << "| device | SRAM (arena bytes) | flash (const bytes) | sends (bytes) | receives (bytes) | M4 instructions "
               "(outside link calls) | per segment between link phases | predicted |\n"
            << "|---|---:|---:|---:|---:|---:|---|---:|\n";
  for (size_t d = 0; d < boards->devices.size(); ++d) {
    const DeviceRunReport& device = boards->devices[d];
    const std::optional<double> predicted = report->device_instructions.at(d);
    std::string per_segment;
    for (uint64_t v : segments[d]) per_segment += (per_segment.empty() ? "" : " / ") + fmt(v);
    std::cout << "| " << d << " | " << fmt(static_cast<uint64_t>(emitted->devices[d].arena_bytes)) << " | "
              << fmt(static_cast<uint64_t>(emitted->devices[d].constant_bytes)) << " | " << fmt(device.bytes_sent)
              << " | " << fmt(device.bytes_received) << " | " << fmt(device.compute_instructions()) << " | "
              << per_segment << " | " << (predicted ? fmt(static_cast<uint64_t>(*predicted)) : std::string("-")) << " |\n";
  }
  const double per_second = device_mhz * 1e6;
  const double compute_seconds = static_cast<double>(compute) / per_second;
  const double one_seconds = static_cast<double>(*one_board) / per_second;
  std::cout << "\nlink bytes " << fmt(static_cast<uint64_t>(emitted->link_bytes)) << "; outputs: MPI " << mpi_verdict
            << ", QEMU boards " << uart_verdict << "; the slowest device's per segment, summed: " << fmt(compute)
            << " M4 instructions; one device (" << alone->result().name << ", arena "
            << format_thousands(alone->result().arena_bytes) << " bytes) " << fmt(*one_board) << "\n\n"
            << "| link | bytes/s | compute (ms) | link (ms) | latency (ms) | one device (ms) | speedup |\n"
            << "|---|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& [link, rate] : {std::pair{"SPI 10 Mbit/s", kSpiBytesPerSecond}, std::pair{"UART 1 Mbit/s", kUartBytesPerSecond}}) {
    const double link_seconds = static_cast<double>(emitted->link_bytes) / static_cast<double>(rate);
    const double latency = compute_seconds + link_seconds;
    std::ostringstream speedup;
    speedup << std::fixed << std::setprecision(2) << one_seconds / latency << "x ("
            << std::setprecision(1) << (1.0 - latency / one_seconds) * 100 << "% lower)";
    std::cout << "| " << link << " | " << fmt(static_cast<uint64_t>(rate)) << " | " << format_ms(compute_seconds)
              << " | " << format_ms(link_seconds) << " | " << format_ms(latency) << " | " << format_ms(one_seconds)
              << " | " << speedup.str() << " |\n";
  }
  std::cout << "\nMPI: " << mpi->command << "\nboards: " << boards->command << "\n";
  return mpi_verdict == "equal" && uart_verdict == "equal" ? 0 : 1;
}

}  // namespace
}  // namespace tinyfit::mcu

int main(int argc, char** argv) { return tinyfit::mcu::run(argc, argv); }
