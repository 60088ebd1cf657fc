// emit-c for `--partition rows` (issue 14 §5): the plans of a
// RowsCompileReport (driver/compile_device_rows.h) as the C emitter's
// records (codegen/emit_devices.h), one program per device, in the order
// the host verification runs them:
//  - device d >= 1 runs its band's plan, then sends its share of each
//    boundary tensor's rows to device 0, in boundary order;
//  - device 0 runs its band's plan, moves its own share of each boundary
//    tensor into the tail's input buffer, receives the other devices'
//    shares there (device by device, each in boundary order), then runs the
//    tail's plan.
// A share is rows of an NHWC tensor: one contiguous block on both sides.
// Device 0's band and tail share its one arena (its SRAM is the larger of
// the two plans' arenas), so a move may land on bytes another move has not
// read yet: the moves run in an order where every block is read before
// another move overwrites it, each one copied as memmove would.
// Each device's API is its band's model inputs (its rows of the model
// input, with their halo: crop_band_inputs) and, on device 0, the model's
// outputs.
#pragma once

#include <vector>

#include "codegen/emit_devices.h"
#include "driver/compile_device_rows.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct RowPrograms {
  std::vector<plan::Plan> bands;  // per device: its band's plan, the boundary outputs out of the API (-1)
  plan::Plan tail;                // device 0's second plan, the boundary inputs out of the API (-1)
  std::vector<std::vector<codegen::DeviceStep>> steps;  // per device

  // The emitter's records (they refer to this object and to `report`).
  std::vector<codegen::DeviceProgram> programs(const RowsCompileReport& report) const;
};

// Requires: `report` from compile_device_rows (every plan placed).
// Guarantees: each device sends exactly the bytes device 0 receives from it
// (report.link_bytes in all). Device 0's moves that cannot be ordered (two
// blocks each landing on the other's rows) are exit 2.
Result<RowPrograms> make_row_programs(const RowsCompileReport& report);

}  // namespace tinyfit::driver
