// `tinyfit compile --devices N --partition rows`: device parts composed with
// the single-device techniques (issue 14). The model's first operators, where
// the large feature maps are, run split by rows over every device (MemoriaNova's
// fmh, the input image delivered to each device by rows with its halo); the
// rest runs on device 0. Each device's band of the head is a graph of its own
// (devices/crop_rows.h) and, like the tail, goes through the whole
// single-device pipeline (compile_model: ordering, in-place, PEX, MOTES row
// loops, overlap, placement, primitive selection) inside that device's SRAM,
// so a device never holds a whole large feature map.
//
// Passes, in order:
//   find-cut        the cut after the fewest operators whose tail fits device
//                   0's SRAM (a binary search over the cuts whose head every
//                   device can compute by bands), then the next cuts while a
//                   band does not fit;
//   split-tail      the tail by bands again (a second stage, and so on):
//                   device 0 gathers the boundary whole, scatters every
//                   device its rows of it (halo included) and the tail's first
//                   operators run by bands; the cut chosen by the latency
//                   model's estimate over every cut (devices/choose_band_stage.h),
//                   then compiled; kept when every part fits and the compiled
//                   prediction (link bytes included) beats the tail whole on
//                   device 0;
//   fit-by-stages   when no cut whose tail fits device 0 whole leaves bands
//                   that fit: an earlier cut whose tail fits by further
//                   stages, the stages over the whole model chosen by the same
//                   estimate with the rest whole only from the first cut whose
//                   tail fitted, then compiled (a stage whose bands do not fit
//                   rules out the stages from its begin as long or longer, and
//                   the choice is made again);
//   balance-bands   the rows of the boundary each device computes, evened
//                   out over the devices' bands of the model input
//                   (devices/balance_bands.h);
//   crop-rows       per device, the band graph of its share of the boundary
//                   tensors' rows;
//   compile-parts   compile_model on every band graph and on the tail;
//   verify          every device's plans executed in poisoned arenas of exactly
//                   their sizes, the boundary bands gathered on device 0 as the
//                   link would carry them, the tail run on them, the outputs
//                   compared with the reference interpreter on the whole model
//                   (int8 bit-exact).
// A device's SRAM is its largest plan's arena: device 0 runs its band, then
// moves its own rows of the boundary (one contiguous block of each NHWC
// tensor) into the tail's input buffer and receives the others' there, so
// the band's arena is dead once the tail starts. Before a further stage of
// bands device 0 gathers the boundary whole at the start of its arena (its
// SRAM is at least the boundary's bytes), scatters from there, and moves its
// own rows into its next band's input buffers.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "devices/crop_rows.h"
#include "devices/device_plan.h"
#include "driver/compile_options.h"
#include "driver/compile_pipeline.h"
#include "driver/compile_verify.h"
#include "exec/tensor_data.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct RowsCompileOptions {
  devices::DeviceLimits limits;
  CompileOptions single;     // techniques, order, placement, latency budget, target (sram and emit unset)
  double device_mhz = 100;   // instructions per second / 1e6 (one per cycle)
  bool execute = true;       // false: --no-verify
  int max_cuts = 12;         // compile_model runs of the tail spent finding the cut, at most
  // One line per part compiled (which part, its arena, its seconds); may be
  // empty. single.deadline (--time-limit) also ends the optional passes: once
  // it has expired no further cut, stage or attempt is compiled, and the best
  // plan so far is reported.
  std::function<void(const std::string&)> progress;
};

// One device's band of the head, compiled.
struct BandPart {
  devices::BandGraph band;
  std::vector<ir::Range> shares;  // per boundary tensor: the rows this device hands on
  CompileReport report;
};

struct CutTried {
  int head_nodes = 0;
  int64_t tail_arena_bytes = 0;
  int64_t largest_band_arena_bytes = -1;  // -1: the bands were not compiled
  bool fits = false;
};

struct RowsCompileReport {
  std::string model;
  devices::DeviceLimits limits;
  int head_nodes = 0;                        // the cut: nodes [0, head_nodes) by bands
  std::vector<ir::TensorId> boundary;        // tensors crossing it
  std::vector<BandPart> bands;               // one per device
  ir::Graph tail_graph;
  CompileReport tail;                        // on device 0 (with tail_rows: compiled for the comparison only)
  // The tail by bands again (split-tail): a report on tail_graph, whose model
  // inputs device 0 scatters; null: the tail runs whole on device 0.
  std::shared_ptr<const RowsCompileReport> tail_rows;
  int64_t gather_bytes = 0;                  // with tail_rows: the boundary whole, gathered on device 0
  // Per device, over this stage and tail_rows' (all the stages after it):
  std::vector<int64_t> sram_bytes;           // its largest plan's arena (device 0: or gather_bytes)
  std::vector<int64_t> flash_bytes;          // the constants of its graphs
  std::vector<int64_t> input_bytes;          // per device: its rows of the model inputs (with their halo)
  // The boundary rows devices 1.. send to device 0, plus, with tail_rows, the
  // rows device 0 scatters to them (tail_rows' input_bytes of devices 1..)
  // and tail_rows' link_bytes.
  int64_t link_bytes = 0;
  int64_t head_macs = 0;                     // the head's MACs in the model
  int64_t band_macs = 0;                     // summed over the band graphs: + halos, - rows no consumer reads
  std::vector<CutTried> cuts;                // what find-cut compiled, in order
  Verification verification;
  // Predicted: the slowest band, the link, the tail (options.single.target's
  // cost table); with tail_rows, the scatter and tail_rows' seconds instead of the tail.
  std::optional<double> seconds;
  std::optional<double> one_device_seconds;  // compile_model on the whole model, unlimited SRAM: its fastest plan
  std::vector<std::optional<double>> device_instructions;  // per device, its bands' and tail's (every stage)

  int count_stages() const { return 1 + (tail_rows ? tail_rows->count_stages() : 0); }
  // The report of the last stage (this one without tail_rows): whose tail runs on device 0.
  const RowsCompileReport& last_stage() const { return tail_rows ? tail_rows->last_stage() : *this; }
  std::vector<int> count_over_limit() const;
  bool fits() const { return count_over_limit().empty(); }
};

// The plan that sets the largest excess of a device's SRAM over its limit:
// the device, the stage (1: the first), and its compile report (the band's, or
// the tail's); report null when it is device 0's gathered boundary (stage
// holds gather_bytes before a further stage).
struct RowsPeak {
  int device = 0;
  int stage = 1;
  bool tail = false;
  int64_t bytes = 0;
  const CompileReport* report = nullptr;
};
RowsPeak find_rows_peak(const RowsCompileReport& report);
// "device 0, stage 1's band, 500,176 bytes at step 12, node '...' (Concat),
// live tensors: ..." (the largest few).
std::string describe_rows_peak(const RowsCompileReport& report);

// Requires: limits with at least 2 devices; single.sram_bytes and emit_dir unset.
// Guarantees: verification.verified only after the composed plans ran and every
// output equalled the reference (a mismatch is an internal error). A model whose
// first operator cannot run by bands is exit 2 with the reason.
Result<RowsCompileReport> compile_device_rows(const ir::Graph& graph, const RowsCompileOptions& options);

// Per device, its rows of the model inputs its band reads (its band graph's
// inputs, in order), cut from the whole `inputs` (graph order): what the
// verification runs each band on, and what a device's firmware writes.
std::vector<std::vector<exec::TensorData>> crop_band_inputs(const ir::Graph& graph, const RowsCompileReport& report,
                                                            const std::vector<exec::TensorData>& inputs);

// "device 1: arena 140,288 bytes > 131,072 (SRAM), ..." for the devices over their limits.
std::string describe_rows_shortfall(const RowsCompileReport& report);

}  // namespace tinyfit::driver
