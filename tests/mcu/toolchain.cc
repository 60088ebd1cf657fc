#include "toolchain.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tinyfit::mcu {
namespace {

// A QEMU run of the largest CI model takes seconds; a fault handler that
// spins, or a kernel that loops forever, is killed here instead of hanging CI.
constexpr int kRunTimeoutSeconds = 300;

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string board_flags(Target target) {
  return target == Target::kCortexM4 ? TINYFIT_BOARD_M4_FLAGS : TINYFIT_BOARD_M7_FLAGS;
}

std::string qemu_machine(Target target) { return target == Target::kCortexM4 ? "mps2-an386" : "mps2-an500"; }

// "output0 0a0b..." -> {0x0a, 0x0b, ...}; nullopt on odd length or a non-hex digit.
std::optional<std::vector<uint8_t>> parse_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<uint8_t> bytes;
  bytes.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    unsigned value = 0;
    if (std::sscanf(hex.c_str() + i, "%2x", &value) != 1) return std::nullopt;
    bytes.push_back(static_cast<uint8_t>(value));
  }
  return bytes;
}

Result<ProgramReport> parse_report(const std::string& text) {
  ProgramReport report;
  bool has_instructions = false, has_stack = false;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string key, value;
    words >> key >> value;
    if (key.starts_with("output")) {
      std::optional<std::vector<uint8_t>> bytes = parse_hex(value);
      if (!bytes) return fail("unreadable output line: " + line);
      report.outputs.push_back(std::move(*bytes));
    } else if (key == "instructions") {
      report.instructions = std::stoull(value);
      has_instructions = true;
    } else if (key == "stack_bytes") {
      report.stack_bytes = std::stoull(value);
      has_stack = true;
    }
  }
  if (!has_instructions || !has_stack) return fail("the program's report is incomplete:\n" + text);
  return report;
}

}  // namespace

std::string_view target_name(Target target) {
  switch (target) {
    case Target::kHost: return "host";
    case Target::kCortexM4: return "m4";
    case Target::kCortexM7: return "m7";
  }
  return "?";
}

std::string find_missing_tools(Target target) {
  if (target == Target::kHost) return std::string(TINYFIT_HOST_CC).empty() ? "a host C compiler" : "";
  if (std::string(TINYFIT_ARM_GCC).empty()) return "arm-none-eabi-gcc";
  if (std::string(TINYFIT_QEMU_ARM).empty()) return "qemu-system-arm";
  return "";
}

CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {127, "cannot start: " + command};
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

CommandResult build_program(const BuildRequest& request) {
  std::string command;
  if (request.target == Target::kHost) {
    command = quote(TINYFIT_HOST_CC) + " -std=c99 -O2 -Wall -Wextra -Werror -I" + quote(TINYFIT_MCU_BOARD_DIR);
  } else {
    const std::string board = TINYFIT_MCU_BOARD_DIR;
    command = quote(TINYFIT_ARM_GCC) + " " + board_flags(request.target) +
              " -std=c99 -O2 -ffreestanding -ffunction-sections -fdata-sections -Wall -Wextra -Werror" +
              " -nostdlib -nostartfiles -T " + quote(board + "/mps2.ld") +
              " -Wl,--defsym=__ram_size=" + std::to_string(request.ram_bytes) + " -Wl,--gc-sections -I" +
              quote(board);
  }
  for (const std::string& dir : request.include_dirs) command += " -I" + quote(dir);
  command += " -o " + quote(request.output);
  const std::string board_source = request.target == Target::kHost ? "/host_board.c" : "/startup.c";
  command += " " + quote(std::string(TINYFIT_MCU_BOARD_DIR) + board_source);
  for (const std::string& source : request.c_sources) command += " " + quote(source);
  for (const std::string& flag : request.extra_flags) command += " " + quote(flag);
  // newlib's libm for the float kernels' expf (our startup.c supplies memcpy
  // and memset, so libc contributes only what libm calls).
  command += request.target == Target::kHost ? " -lm" : " -lm -lc -lgcc";
  return run_command(command);
}

CommandResult build_with_cmake(const CMakeBuildRequest& request) {
  std::string configure = quote(TINYFIT_CMAKE) + " -S " + quote(TINYFIT_FIRMWARE_PROJECT_DIR) + " -B " +
                          quote(request.build_dir) + " -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMODEL_DIR=" +
                          quote(request.model_dir) + " -DMODEL_TARGET=" + quote(request.model_target) +
                          " -DMAIN=" + quote(request.main_source);
  if (request.target == Target::kHost) {
    configure += " -DCMAKE_C_COMPILER=" + quote(TINYFIT_HOST_CC);
  } else {
    configure += " -DCMAKE_TOOLCHAIN_FILE=" + quote(TINYFIT_ARM_TOOLCHAIN_FILE) + " -DTINYFIT_ARM_CPU_FLAGS=" +
                 quote(board_flags(request.target)) + " -DRAM_BYTES=" + std::to_string(request.ram_bytes);
  }
  CommandResult configured = run_command(configure);
  if (configured.exit_code != 0) return configured;
  CommandResult built = run_command(quote(TINYFIT_CMAKE) + " --build " + quote(request.build_dir));
  built.output = configured.output + built.output;
  return built;
}

Result<ProgramReport> run_program(Target target, const std::string& executable) {
  std::string command = "timeout " + std::to_string(kRunTimeoutSeconds) + " ";
  if (target == Target::kHost) {
    command += quote(executable);
  } else {
    command += quote(TINYFIT_QEMU_ARM) + " -M " + qemu_machine(target) +
               " -nographic -monitor none -serial none -semihosting-config enable=on,target=native" +
               " -icount shift=0 -kernel " + quote(executable);
  }
  const CommandResult run = run_command(command);
  if (run.exit_code != 0) {
    return fail(std::string(target_name(target)) + " run exited " + std::to_string(run.exit_code) + ":\n" +
                run.output);
  }
  return parse_report(run.output);
}

Result<uint64_t> count_host_instructions(const std::string& executable, const std::string& function) {
  if (std::string(TINYFIT_VALGRIND).empty()) return fail("valgrind is not installed");
  const std::string out_file = executable + ".callgrind";
  const CommandResult run = run_command(quote(TINYFIT_VALGRIND) + " --tool=callgrind --callgrind-out-file=" +
                                        quote(out_file) + " --toggle-collect=" + quote(function) + " " +
                                        quote(executable) + " > /dev/null");
  if (run.exit_code != 0) return fail("callgrind run failed:\n" + run.output);
  std::ifstream in(out_file);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("summary: ")) return std::stoull(line.substr(9));
  }
  return fail(out_file + ": no summary line");
}

std::optional<int64_t> read_symbol_bytes(const std::string& elf, const std::string& symbol) {
  const CommandResult nm = run_command(quote(TINYFIT_ARM_NM) + " -S " + quote(elf));
  std::istringstream in(nm.output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string address, size, kind, name;
    if (words >> address >> size >> kind >> name && name == symbol) return std::stoll(size, nullptr, 16);
  }
  return std::nullopt;
}

std::optional<int64_t> measure_code_bytes(Target target, const std::string& source,
                                          const std::vector<std::string>& include_dirs) {
  const std::string object = source + ".o";
  std::string command = quote(TINYFIT_ARM_GCC) + " " + board_flags(target) +
                        " -std=c99 -O2 -ffreestanding -ffunction-sections -fdata-sections -c -o " + quote(object);
  for (const std::string& dir : include_dirs) command += " -I" + quote(dir);
  if (run_command(command + " " + quote(source)).exit_code != 0) return std::nullopt;
  int64_t text = 0;
  for (const auto& [section, bytes] : read_section_bytes(object)) {
    if (section.starts_with(".text")) text += bytes;
  }
  return text;
}

std::map<std::string, int64_t> read_section_bytes(const std::string& elf) {
  const CommandResult size = run_command(quote(TINYFIT_ARM_SIZE) + " -A " + quote(elf));
  std::map<std::string, int64_t> sections;
  std::istringstream in(size.output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string name;
    int64_t bytes = 0;
    if (words >> name >> bytes && name.starts_with(".")) sections[name] = bytes;
  }
  return sections;
}

}  // namespace tinyfit::mcu
