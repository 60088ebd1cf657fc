// A multi-device emitted model (codegen/emit_devices.h) built and run as
// linked programs, one per device (issue 14 §5), with each of the two link
// implementations tinyfit ships (runtime/link/):
//  - kMpi: host processes, tinyfit_link_mpi.c, built with mpicc and started
//    together by `mpirun -np 1 device0 : -np 1 device1 ...` (Open MPI);
//  - kUart: one QEMU mps2-an386 (Cortex-M4) per device,
//    tinyfit_link_cmsdk_uart.c, the UARTs of every pair of boards connected
//    through a loopback TCP socket (run_linked.sh beside the programs).
// Each device's main.c writes the model inputs it holds (fixed arrays),
// calls its invoke once and reports its status, the bytes its link
// implementation counted, and the model outputs it holds in hex (MPI: into
// run.txt beside its program, since mpirun interleaves the ranks' stdout;
// boards: through their console into the same file). On the
// boards it also counts instructions (QEMU -icount, board.h's SysTick
// counter): the whole invoke's, and those spent inside tinyfit_link_send /
// tinyfit_link_recv (wrapped at link time with -Wl,--wrap: the transfers and
// the polling while a peer is not ready), so invoke minus link is the
// device's compute (its kernel calls and local copies).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/emit_devices.h"
#include "exec/tensor_data.h"
#include "support/diag.h"

namespace tinyfit::mcu {

enum class LinkKind { kMpi, kUart };

// Every device's run, at most; QEMU boards of a small model take well under a second.
constexpr int kLinkedRunTimeoutSeconds = 60;
std::string_view link_kind_name(LinkKind kind);  // "mpi", "uart"

// Empty when the kind's tools are installed; otherwise what is missing.
std::string find_missing_link_tools(LinkKind kind);

struct DeviceRunReport {
  int status = -1;                 // invoke's return value
  uint64_t bytes_sent = 0;         // as the link implementation counted them
  uint64_t bytes_received = 0;
  std::map<size_t, std::vector<uint8_t>> outputs;  // model output index -> bytes
  // Boards only (0 on MPI): retired instructions of the invoke, and of them
  // those inside the link calls.
  uint64_t instructions = 0;
  uint64_t link_instructions = 0;
  // Boards only: before each link call (its first 512), the invoke's
  // instructions outside link calls so far (with --partition rows, [0] is
  // the first band's compute).
  std::vector<uint64_t> compute_before_link_calls;
  uint64_t compute_instructions() const { return instructions - link_instructions; }
};

struct LinkedRunReport {
  std::vector<DeviceRunReport> devices;
  std::string command;  // what ran them, to repeat by hand
};

// Requires: `inputs` one per model input. Writes everything under
// `directory`, builds one program per device, runs them linked and parses
// what each printed. A build failure, a device that exits non-zero or
// prints no report, or a run past the timeout is an error with the output.
Result<LinkedRunReport> run_linked_devices(const codegen::EmittedDevices& emitted,
                                           const std::vector<exec::TensorData>& inputs, const std::string& directory,
                                           LinkKind kind);

// The same with each device's own inputs: device_inputs[d][i] is model
// input i as device d's API takes it (--partition rows: its rows of the
// image, driver/compile_device_rows.h crop_band_inputs), and a timeout per
// run (whole models on the boards take minutes: bench/).
Result<LinkedRunReport> run_linked_devices(const codegen::EmittedDevices& emitted,
                                           const std::vector<std::vector<exec::TensorData>>& device_inputs,
                                           const std::string& directory, LinkKind kind,
                                           int timeout_seconds = kLinkedRunTimeoutSeconds);

}  // namespace tinyfit::mcu
