// A test program around an emitted model (issue 5): the model's files from
// codegen::emit_c_model plus a main.c that feeds fixed inputs (const arrays,
// so they sit in flash on the board), runs one inference between two reads of
// the board's instruction counter, and prints over board.h:
//   output<i> <hex bytes>
//   instructions <count>   (SysTick ticks x 40 on the board; 0 on the host)
//   stack_bytes <count>    (stack high-water mark; 0 on the host)
// The same main.c builds for the host (board/host_board.c) and for QEMU's
// Cortex-M boards (board/startup.c), so both print comparable bytes.
#pragma once

#include <string>
#include <vector>

#include "codegen/emit_model.h"
#include "exec/tensor_data.h"
#include "support/diag.h"

namespace tinyfit::mcu {

struct TestProgram {
  std::string directory;                  // where everything was written
  std::vector<std::string> c_sources;     // model.c, runtime kernels, main.c (absolute paths)
  std::vector<std::string> include_dirs;  // the directory and its runtime/include
  std::string arena_symbol;               // "<prefix>_arena"
  std::string run_function;               // "<prefix>_run"
};

// Requires: `inputs` one per graph input of the emitted model and `outputs`
// one per graph output (only their dtype and size are used), as model.h
// declares them.
// Guarantees: the files are written under `directory` (created if missing);
// main.c is C99 and warning-free under -Wall -Wextra.
Result<TestProgram> write_test_program(const codegen::EmittedModel& model,
                                       const std::vector<exec::TensorData>& inputs,
                                       const std::vector<exec::TensorData>& outputs, const std::string& directory);

}  // namespace tinyfit::mcu
