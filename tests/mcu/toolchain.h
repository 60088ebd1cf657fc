// Building and running test programs (test_program.h) on the host and on
// QEMU's emulated Cortex-M boards, and reading the facts the issue asks for
// from the result: output bytes, retired instructions, stack high-water mark,
// the arena symbol's size and the section sizes of the ELF.
// Tool paths come from CMake (tests/mcu/CMakeLists.txt); facts about the tools
// are in ../shared/notes/TOOLCHAIN.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/diag.h"

namespace tinyfit::mcu {

enum class Target {
  kHost,       // the host C compiler, board/host_board.c
  kCortexM4,   // arm-none-eabi-gcc -mcpu=cortex-m4 (FPU), QEMU mps2-an386
  kCortexM7,   // arm-none-eabi-gcc -mcpu=cortex-m7 (FPU), QEMU mps2-an500
};
std::string_view target_name(Target target);  // "host", "m4", "m7"

// Empty when the target's tools are installed; otherwise what is missing.
std::string find_missing_tools(Target target);

struct BuildRequest {
  Target target = Target::kHost;
  std::vector<std::string> c_sources;
  std::vector<std::string> include_dirs;
  std::string output;          // the executable / ELF to write
  int64_t ram_bytes = 0;       // boards: the RAM region's LENGTH (the SRAM budget)
  std::vector<std::string> extra_flags;  // appended to the command (e.g. -Wl,--wrap=symbol)
};

struct CommandResult {
  int exit_code = 0;           // the command's exit status; 128 + n for signal n
  std::string output;          // stdout and stderr, interleaved
};

// Runs `command` through /bin/sh, capturing its output.
CommandResult run_command(const std::string& command);

// Compiles and links with -std=c99 -O2 -Wall -Wextra -Werror (boards: our
// startup code and linker script, -Wl,--defsym=__ram_size=ram_bytes, so a
// program over budget fails to link with the linker's message).
CommandResult build_program(const BuildRequest& request);

// A firmware project built with CMake around an emitted folder, the way a
// user adds it (issue 10 §4): tests/mcu/firmware_project, which adds
// `model_dir` with add_subdirectory and links `main_source` (plus the board
// support) against the library `model_target`. Host: the host C compiler;
// boards: the repository's toolchain file cmake/arm-none-eabi-gcc.cmake with
// the board's CPU flags and the RAM region of `ram_bytes`.
struct CMakeBuildRequest {
  Target target = Target::kHost;
  std::string model_dir;     // the folder emit_c_model's files were written to
  std::string model_target;  // "tinyfit_<name>"
  std::string main_source;
  std::string build_dir;     // the program is <build_dir>/program
  int64_t ram_bytes = 0;     // boards only
};

// Configures (RelWithDebInfo: -O2) and builds; the output of both steps.
CommandResult build_with_cmake(const CMakeBuildRequest& request);

// What a test program printed (test_program.h).
struct ProgramReport {
  std::vector<std::vector<uint8_t>> outputs;  // output<i> in order
  uint64_t instructions = 0;                  // board: retired instructions (40 per tick)
  uint64_t stack_bytes = 0;
};

// Runs the program (host: directly; boards: qemu-system-arm with semihosting
// and -icount shift=0, under a timeout) and parses what it printed. A non-zero
// exit or an unreadable report is an error carrying the program's output.
Result<ProgramReport> run_program(Target target, const std::string& executable);

// Retired host instructions inside `function` (inclusive of its callees) in
// one run, from valgrind --tool=callgrind --toggle-collect.
Result<uint64_t> count_host_instructions(const std::string& executable, const std::string& function);

// The size of `symbol` in the ELF (arm-none-eabi-nm -S), nullopt if absent.
std::optional<int64_t> read_symbol_bytes(const std::string& elf, const std::string& symbol);

// Section name -> bytes (arm-none-eabi-size -A).
std::map<std::string, int64_t> read_section_bytes(const std::string& elf);

// Code bytes (.text) of one C source compiled alone for a board target with
// the flags build_program uses (an object file written beside the source);
// nullopt if it does not compile.
std::optional<int64_t> measure_code_bytes(Target target, const std::string& source,
                                          const std::vector<std::string>& include_dirs);

}  // namespace tinyfit::mcu
