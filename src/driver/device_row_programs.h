// emit-c for `--partition rows` (issue 14 §5): the plans of a
// RowsCompileReport (driver/compile_device_rows.h) as the C emitter's
// records (codegen/emit_devices.h), one program per device, in the order
// the host verification runs them. Stage by stage:
//  - every device runs its band's plan;
//  - device d >= 1 sends its share of each boundary tensor's rows to device
//    0, in boundary order;
//  - the last stage: device 0 moves its own share of each boundary tensor
//    into the tail's input buffer, receives the other devices' shares there
//    (device by device, each in boundary order), then runs the tail's plan;
//  - a stage with a further one (tail_rows): device 0 moves its own share
//    into the gather buffer (the boundary tensors whole, one after another,
//    from the start of its arena), receives the others' shares there, sends
//    every device d >= 1 its rows of each of them (its next band's inputs,
//    halo included), and moves its own into its next band's input buffers;
//    device d >= 1 receives them into its next band's input buffers.
// Device 0 only receives, then only sends, so blocking links cannot
// deadlock. A share is rows of an NHWC tensor: one contiguous block on both
// sides. A device's plans share its one arena (its SRAM is the largest
// plan's arena, on device 0 at least the gather buffer), so a move may land
// on bytes another move has not read yet: the moves run in an order where
// every block is read before another move overwrites it, each one copied as
// memmove would, and a move of a cycle (blocks each landing on the next
// one's source) is first copied to free bytes of the arena and moved from
// there (devices/order_block_moves.h).
// Each device's API is its first band's model inputs (its rows of the model
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
  // Per device, the plans it runs in its arena, in order: its band of every
  // stage, then (device 0) the last stage's tail; the inputs and outputs
  // other than the API's out of it (-1). graphs[d][k] is plans[d][k]'s graph
  // (in the report).
  std::vector<std::vector<plan::Plan>> plans;
  std::vector<std::vector<const ir::Graph*>> graphs;
  std::vector<std::vector<codegen::DeviceStep>> steps;  // per device

  // The emitter's records (they refer to this object and to the report).
  std::vector<codegen::DeviceProgram> programs() const;
};

// Requires: `report` from compile_device_rows (every plan placed).
// Guarantees: each device sends exactly the bytes its peers receive from it
// (report.link_bytes in all); device 0's copies stay inside its arena
// (report.sram_bytes[0]). Device 0's moves that form a cycle no block of
// which fits in the arena's free bytes are exit 2.
Result<RowPrograms> make_row_programs(const RowsCompileReport& report);

}  // namespace tinyfit::driver
