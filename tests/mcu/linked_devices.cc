#include "linked_devices.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/c_source.h"
#include "toolchain.h"

namespace tinyfit::mcu {
namespace {

namespace fs = std::filesystem;

// The MPS2 boards' 25 MHz peripheral clock / 25 = 1 Mbit/s (QEMU's sockets
// ignore the rate).
constexpr int kUartBaudDivisor = 25;
// The board's RAM region for each device: arena, stack and the link's few words.
constexpr int64_t kBoardRamBytes = 256 * 1024;
// Link calls whose compute count a board keeps (a --partition rows stage makes
// a few per boundary tensor and device).
constexpr int kMaxLinkMarks = 512;

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// main.c of device `d`: fixed inputs, one invoke, a report of lines
// "status <n>", "sent <n>", "received <n>", "output<i> <hex>".
std::string make_device_main(const codegen::EmittedModel& model, int d, int devices,
                             const std::vector<exec::TensorData>& inputs, LinkKind kind) {
  const std::string macro = codegen::make_macro_name(model.prefix);
  std::ostringstream out;
  out << "/* Device " << d << " of " << devices << " (" << link_kind_name(kind)
      << " link): fixed inputs, one invoke, a report. */\n";
  if (kind == LinkKind::kMpi) {
    out << "#include <stdio.h>\n\n#include \"model.h\"\n#include \"tinyfit_link_mpi.h\"\n\n";
  } else {
    out << "#include \"board.h\"\n#include \"model.h\"\n#include \"tinyfit_link_cmsdk_uart.h\"\n\n"
        << "/* The link calls, wrapped (-Wl,--wrap): the counter ticks spent inside them,\n"
        << " * and the invoke's ticks outside them before each of them. */\n"
        << "static uint64_t link_ticks, base;\n"
        << "/* The invoke's ticks outside link calls before each link call (the first " << kMaxLinkMarks << "). */\n"
        << "static uint64_t compute_marks[" << kMaxLinkMarks << "];\n"
        << "static uint32_t compute_mark_count;\n"
        << "static void note_link_call(uint64_t start) {\n"
        << "  if (compute_mark_count < " << kMaxLinkMarks << "u) {\n"
        << "    compute_marks[compute_mark_count++] = start - base - link_ticks;\n  }\n}\n"
        << "int __real_tinyfit_link_send(int peer, const void* data, uint32_t bytes);\n"
        << "int __real_tinyfit_link_recv(int peer, void* data, uint32_t bytes);\n"
        << "int __wrap_tinyfit_link_send(int peer, const void* data, uint32_t bytes);\n"
        << "int __wrap_tinyfit_link_recv(int peer, void* data, uint32_t bytes);\n"
        << "int __wrap_tinyfit_link_send(int peer, const void* data, uint32_t bytes) {\n"
        << "  const uint64_t start = board_counter_read();\n"
        << "  int status;\n  note_link_call(start);\n"
        << "  status = __real_tinyfit_link_send(peer, data, bytes);\n"
        << "  link_ticks += board_counter_read() - start;\n  return status;\n}\n"
        << "int __wrap_tinyfit_link_recv(int peer, void* data, uint32_t bytes) {\n"
        << "  const uint64_t start = board_counter_read();\n"
        << "  int status;\n  note_link_call(start);\n"
        << "  status = __real_tinyfit_link_recv(peer, data, bytes);\n"
        << "  link_ticks += board_counter_read() - start;\n  return status;\n}\n\n";
  }
  for (size_t i : model.input_indices) {
    const std::string_view type = codegen::c_element_type(inputs.at(i).dtype);
    out << "static const " << type << " input" << i << "_data[] = "
        << codegen::format_array_initializer(type, inputs.at(i).bytes) << ";\n\n";
  }
  if (!model.input_indices.empty()) {
    out << "static void copy_bytes(uint8_t* dst, const uint8_t* src, uint32_t bytes) {\n"
        << "  uint32_t i;\n  for (i = 0; i < bytes; ++i) dst[i] = src[i];\n}\n\n";
  }
  if (kind == LinkKind::kMpi) {
    if (!model.output_indices.empty()) {
      out << "static void print_hex(FILE* report, const char* label, const void* data, uint32_t bytes) {\n"
          << "  const uint8_t* p = (const uint8_t*)data;\n  uint32_t i;\n"
          << "  fprintf(report, \"device " << d << " %s \", label);\n"
          << "  for (i = 0; i < bytes; ++i) fprintf(report, \"%02x\", (unsigned)p[i]);\n"
          << "  fprintf(report, \"\\n\");\n}\n\n";
    }
    out << "int main(int argc, char** argv) {\n  int status;\n  FILE* report;\n"
        << "  if (tinyfit_link_mpi_open(&argc, &argv, " << devices << ") != " << d << ") {\n"
        << "    fprintf(stderr, \"device " << d << ": not MPI rank " << d << "\\n\");\n    return 3;\n  }\n";
  } else {
    out << "int main(void) {\n  int status;\n  uint64_t ticks;\n"
        << "  if (tinyfit_link_uart_open(" << d << ", " << devices << ", " << kUartBaudDivisor
        << "u) != 0) return 3;\n";
  }
  for (size_t i : model.input_indices) {
    out << "  copy_bytes((uint8_t*)" << model.prefix << "_input(" << i << "), (const uint8_t*)input" << i
        << "_data, sizeof input" << i << "_data);\n";
  }
  // SysTick reloads at its first tick after the start: until then the
  // counter reads its reload value, so the count starts from a later base.
  if (kind == LinkKind::kUart) {
    out << "  board_counter_start();\n  while (board_counter_read() >= 0x00FFFFFFu) {\n  }\n"
        << "  base = board_counter_read();\n";
  }
  out << "  status = " << model.prefix << "_invoke();\n";
  if (kind == LinkKind::kUart) {
    out << "  ticks = board_counter_read() - base;\n";
  }
  if (kind == LinkKind::kMpi) {
    // The report goes to the file named by the first argument: mpirun
    // forwards the ranks' stdout interleaved, a long output line included.
    out << "  report = argc > 1 ? fopen(argv[1], \"w\") : NULL;\n  if (report == NULL) report = stdout;\n"
        << "  fprintf(report, \"device " << d << " status %d\\n\", status);\n"
        << "  fprintf(report, \"device " << d
        << " sent %llu\\n\", (unsigned long long)tinyfit_link_mpi_bytes_sent());\n"
        << "  fprintf(report, \"device " << d
        << " received %llu\\n\", (unsigned long long)tinyfit_link_mpi_bytes_received());\n";
    for (size_t i : model.output_indices) {
      out << "  print_hex(report, \"output" << i << "\", " << model.prefix << "_output(" << i << "), " << macro << "_OUTPUT"
          << i << "_BYTES);\n";
    }
    out << "  if (report != stdout) fclose(report);\n  fflush(stdout);\n  tinyfit_link_mpi_close();\n";
  } else {
    out << "  board_write(\"status \");\n  board_write_u64((uint64_t)(uint32_t)status);\n"
        << "  board_write(\"sent \");\n  board_write_u64(tinyfit_link_uart_bytes_sent());\n"
        << "  board_write(\"received \");\n  board_write_u64(tinyfit_link_uart_bytes_received());\n"
        << "  board_write(\"instructions \");\n  board_write_u64(ticks * BOARD_INSTRUCTIONS_PER_TICK);\n"
        << "  board_write(\"link_instructions \");\n  board_write_u64(link_ticks * BOARD_INSTRUCTIONS_PER_TICK);\n"
        << "  {\n    uint32_t m;\n    for (m = 0; m < compute_mark_count; ++m) {\n"
        << "      board_write(\"compute_before_link \");\n"
        << "      board_write_u64(compute_marks[m] * BOARD_INSTRUCTIONS_PER_TICK);\n    }\n  }\n";
    for (size_t i : model.output_indices) {
      out << "  board_write(\"output" << i << " \");\n  board_write_hex(" << model.prefix << "_output(" << i
          << "), " << macro << "_OUTPUT" << i << "_BYTES);\n";
    }
  }
  out << "  return status;\n}\n";
  return out.str();
}

std::optional<std::vector<uint8_t>> parse_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int high = std::isxdigit(static_cast<unsigned char>(hex[i])) ? std::stoi(hex.substr(i, 1), nullptr, 16) : -1;
    const int low =
        std::isxdigit(static_cast<unsigned char>(hex[i + 1])) ? std::stoi(hex.substr(i + 1, 1), nullptr, 16) : -1;
    if (high < 0 || low < 0) return std::nullopt;
    bytes.push_back(static_cast<uint8_t>(high * 16 + low));
  }
  return bytes;
}

// One device's report lines ("key value"), already stripped of any prefix.
Status parse_device_line(const std::string& key, const std::string& value, DeviceRunReport& report) {
  if (key == "status") {
    report.status = std::stoi(value);
  } else if (key == "sent") {
    report.bytes_sent = std::stoull(value);
  } else if (key == "received") {
    report.bytes_received = std::stoull(value);
  } else if (key == "instructions") {
    report.instructions = std::stoull(value);
  } else if (key == "link_instructions") {
    report.link_instructions = std::stoull(value);
  } else if (key == "compute_before_link") {
    report.compute_before_link_calls.push_back(std::stoull(value));
  } else if (key.starts_with("output")) {
    std::optional<std::vector<uint8_t>> bytes = parse_hex(value);
    if (!bytes) return fail("unreadable output line: " + key + " " + value);
    report.outputs[std::stoul(key.substr(6))] = std::move(*bytes);
  }
  return {};
}

// The device folders, main.c each, and the link implementation's files.
Result<std::vector<std::string>> write_device_programs(const codegen::EmittedDevices& emitted,
                                                       const std::vector<std::vector<exec::TensorData>>& inputs,
                                                       const fs::path& root, LinkKind kind) {
  TINYFIT_RETURN_IF_ERROR(codegen::write_emitted_devices(emitted, root.string()));
  const int devices = static_cast<int>(emitted.devices.size());
  std::vector<std::string> programs;
  const std::string link_source =
      (root / "link" / (kind == LinkKind::kMpi ? "tinyfit_link_mpi.c" : "tinyfit_link_cmsdk_uart.c")).string();
  for (int d = 0; d < devices; ++d) {
    const codegen::EmittedModel& model = emitted.devices[static_cast<size_t>(d)];
    const fs::path dir = root / codegen::device_folder(d);
    std::ofstream(dir / "main.c", std::ios::binary) << make_device_main(model, d, devices, inputs.at(static_cast<size_t>(d)), kind);
    std::vector<std::string> sources = {(dir / "main.c").string(), link_source};
    for (const codegen::EmittedFile& file : model.files) {
      if (file.path.ends_with(".c")) sources.push_back((dir / file.path).string());
    }
    const std::vector<std::string> includes = {dir.string(), (dir / "runtime" / "include").string(),
                                               (root / "link").string()};
    const std::string program = (dir / (kind == LinkKind::kMpi ? "program" : "program.elf")).string();
    CommandResult built;
    if (kind == LinkKind::kMpi) {
      std::string command = quote(TINYFIT_MPICC) + " -std=c99 -O2 -Wall -Wextra -Werror -o " + quote(program);
      for (const std::string& include : includes) command += " -I" + quote(include);
      for (const std::string& source : sources) command += " " + quote(source);
      built = run_command(command + " -lm");
    } else {
      built = build_program({Target::kCortexM4, sources, includes, program, kBoardRamBytes,
                             {"-Wl,--wrap=tinyfit_link_send", "-Wl,--wrap=tinyfit_link_recv"}});
    }
    if (built.exit_code != 0) return fail("device " + std::to_string(d) + " does not build:\n" + built.output);
    programs.push_back(program);
  }
  return programs;
}

Result<LinkedRunReport> run_mpi(const std::vector<std::string>& programs, int timeout_seconds) {
  LinkedRunReport report;
  // As root Open MPI wants --allow-run-as-root; --oversubscribe lets it start
  // more processes than the machine has cores.
  report.command = "timeout " + std::to_string(timeout_seconds) + " " + quote(TINYFIT_MPIRUN) +
                   " --allow-run-as-root --oversubscribe";
  // Each device writes its report to run.txt beside its program.
  std::vector<fs::path> reports;
  for (size_t d = 0; d < programs.size(); ++d) {
    reports.push_back(fs::path(programs[d]).parent_path() / "run.txt");
    std::error_code error;
    fs::remove(reports.back(), error);
    report.command += std::string(d ? " :" : "") + " -np 1 " + quote(programs[d]) + " " + quote(reports.back().string());
  }
  const CommandResult run = run_command(report.command);
  if (run.exit_code != 0) return fail("mpirun exited " + std::to_string(run.exit_code) + ":\n" + run.output);
  report.devices.resize(programs.size());
  std::vector<bool> seen(programs.size(), false);
  for (size_t d = 0; d < programs.size(); ++d) {
    std::ifstream in(reports[d]);
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::string device_word, key, value;
      size_t device = 0;
      if (!(words >> device_word >> device >> key >> value) || device_word != "device" || device != d) continue;
      TINYFIT_RETURN_IF_ERROR(parse_device_line(key, value, report.devices[d]));
      if (key == "status") seen[d] = true;
    }
  }
  for (size_t d = 0; d < programs.size(); ++d) {
    if (!seen[d]) return fail("device " + std::to_string(d) + " printed no report:\n" + run.output);
  }
  return report;
}

// run_linked.sh: one QEMU per device, started in device order, each in the
// background. The UARTs of devices a < b meet on port base + pair(a, b): a
// listens (wait=on: its guest starts only once b connected, so no byte is
// sent into an unconnected socket), b connects, retrying while a is not
// listening yet. Each device's output goes to device<d>/run.txt, its exit
// status to device<d>/run.status.
std::string make_qemu_script(const std::vector<std::string>& programs, int timeout_seconds) {
  const int devices = static_cast<int>(programs.size());
  std::ostringstream out;
  out << "#!/bin/sh\n# " << devices << " QEMU mps2-an386 boards whose UARTs are linked by loopback sockets.\n"
      << "# Usage: run_linked.sh BASE_PORT\nbase=$1\ncd \"$(dirname \"$0\")\"\n"
      << "start() {  # device, qemu arguments...\n"
      << "  d=$1; shift\n"
      << "  ( tries=0\n"
      << "    while :; do\n"
      << "      timeout " << timeout_seconds << " " << quote(TINYFIT_QEMU_ARM)
      << " -M mps2-an386 -nographic -monitor none -semihosting-config enable=on,target=native"
      << " -icount shift=0 \"$@\" > device$d/run.txt 2>&1\n"
      << "      status=$?\n"
      << "      tries=$((tries + 1))\n"
      << "      grep -q 'Connection refused' device$d/run.txt && [ $tries -lt 100 ] || break\n"
      << "      sleep 0.1\n"
      << "    done\n"
      << "    echo $status > device$d/run.status ) &\n"
      << "}\n"
      << "# A device starts once every port it connects to listens (a QEMU with several\n"
      << "# wait=on servers opens them one after another): a refused connect after an\n"
      << "# accepted one would restart a device whose earlier peer no longer listens.\n"
      << "wait_listen() {  # port\n"
      << "  tries=0\n"
      << "  until ss -ltn | grep -q \":$1 \"; do\n"
      << "    tries=$((tries + 1)); [ $tries -ge 1200 ] && break; sleep 0.05\n"
      << "  done\n"
      << "}\n";
  int pair = 0;
  std::map<std::pair<int, int>, int> ports;
  for (int a = 0; a < devices; ++a) {
    for (int b = a + 1; b < devices; ++b) ports[{a, b}] = pair++;
  }
  for (int d = 0; d < devices; ++d) {
    for (int p = 0; p < d; ++p) out << "wait_listen $((base + " << ports.at({p, d}) << "))\n";
    out << "start " << d;
    for (int p = 0; p < devices; ++p) {
      if (p == d) continue;
      const int port = ports.at({std::min(p, d), std::max(p, d)});
      out << " -serial tcp:127.0.0.1:$((base + " << port << "))" << (p > d ? ",server=on,wait=on" : "");
    }
    out << " -kernel " << codegen::device_folder(d) << "/program.elf\n";
  }
  out << "wait\n";
  return out.str();
}

Result<LinkedRunReport> run_qemu(const std::vector<std::string>& programs, const fs::path& root, int timeout_seconds) {
  const fs::path script = root / "run_linked.sh";
  std::ofstream(script, std::ios::binary) << make_qemu_script(programs, timeout_seconds);
  LinkedRunReport report;
  // A port another run holds makes QEMU fail to listen: try other bases.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int base = 20000 + static_cast<int>((getpid() * 7 + attempt * 997) % 30000);
    report.command = "sh " + quote(script.string()) + " " + std::to_string(base);
    const CommandResult run = run_command(report.command);
    if (run.exit_code != 0) return fail("run_linked.sh exited " + std::to_string(run.exit_code) + ":\n" + run.output);
    report.devices.assign(programs.size(), {});
    bool address_in_use = false;
    std::string failures;
    for (size_t d = 0; d < programs.size(); ++d) {
      const fs::path dir = root / codegen::device_folder(static_cast<int>(d));
      std::ifstream status_file(dir / "run.status");
      int exit_status = -1;
      status_file >> exit_status;
      std::ifstream text_file(dir / "run.txt");
      const std::string text((std::istreambuf_iterator<char>(text_file)), std::istreambuf_iterator<char>());
      address_in_use = address_in_use || text.find("Address already in use") != std::string::npos;
      std::istringstream in(text);
      for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string key, value;
        if (words >> key >> value) TINYFIT_RETURN_IF_ERROR(parse_device_line(key, value, report.devices[d]));
      }
      if (exit_status != 0 || report.devices[d].status < 0) {
        failures += "device " + std::to_string(d) + " exited " + std::to_string(exit_status) + ":\n" + text;
      }
    }
    if (failures.empty()) return report;
    if (!address_in_use) return fail(failures);
  }
  return fail("every port base tried was in use");
}

}  // namespace

std::string_view link_kind_name(LinkKind kind) { return kind == LinkKind::kMpi ? "mpi" : "uart"; }

std::string find_missing_link_tools(LinkKind kind) {
  if (kind == LinkKind::kMpi) {
    if (std::string(TINYFIT_MPICC).empty()) return "mpicc (libopenmpi-dev)";
    if (std::string(TINYFIT_MPIRUN).empty()) return "mpirun (openmpi-bin)";
    return "";
  }
  return find_missing_tools(Target::kCortexM4);
}

Result<LinkedRunReport> run_linked_devices(const codegen::EmittedDevices& emitted,
                                           const std::vector<std::vector<exec::TensorData>>& device_inputs,
                                           const std::string& directory, LinkKind kind, int timeout_seconds) {
  TINYFIT_CHECK(device_inputs.size() == emitted.devices.size())
      << device_inputs.size() << " devices' inputs for " << emitted.devices.size() << " devices";
  const fs::path root = fs::absolute(directory);
  std::error_code error;
  fs::remove_all(root, error);
  TINYFIT_ASSIGN_OR_RETURN(std::vector<std::string> programs, write_device_programs(emitted, device_inputs, root, kind));
  return kind == LinkKind::kMpi ? run_mpi(programs, timeout_seconds) : run_qemu(programs, root, timeout_seconds);
}

Result<LinkedRunReport> run_linked_devices(const codegen::EmittedDevices& emitted,
                                           const std::vector<exec::TensorData>& inputs, const std::string& directory,
                                           LinkKind kind) {
  return run_linked_devices(emitted, std::vector<std::vector<exec::TensorData>>(emitted.devices.size(), inputs),
                            directory, kind, kLinkedRunTimeoutSeconds);
}

}  // namespace tinyfit::mcu
