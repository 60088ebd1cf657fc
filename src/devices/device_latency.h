// The predicted latency of a DevicePlan (issue 14 §2 and §6): the latency
// model's instructions (cost/) for every device's part of every operator,
// and the link's time for the bytes the stages exchange.
//
// Timing model (what the search minimises and `compile --devices` reports):
// the devices run the stages in lockstep, as their programs' blocking
// send/receive order implies for one inference. A stage first moves its
// transfers over one shared link, one after another (link bytes / rate),
// then every device computes its part (its local copies, then its kernel
// call); the stage ends when the slowest device does. So
//   latency = sum over stages (link bytes / rate + max over devices of
//             (part + local copy instructions) / instructions per second).
// Instructions are the target table's (cortex-m4 for the MPS2 boards);
// seconds assume one instruction per cycle at the given clock, a lower bound
// of the M4's cycles. A part's instructions are its runtime calls'
// (exec::count_kernel_work of the kernel form and views the host
// verification and the emitted C run: part_kernel.h); an alias part and a
// local copy are predicted as the table's tf_x8_copy of their box (the
// emitted C copies them with a byte loop: an approximation). The devices'
// run functions' own counts (prologue, loop control) are not counted.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "cost/cost_table.h"
#include "devices/device_plan.h"
#include "devices/part_kernel.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::devices {

struct LatencyModel {
  const cost::CostTable* table = nullptr;
  double instructions_per_second = 100e6;  // one instruction per cycle at 100 MHz
  int64_t link_bytes_per_second = 0;       // 0: transfers cost no time
};

struct StageLatency {
  int64_t link_bytes = 0;
  double link_seconds = 0;
  std::vector<double> instructions;  // per device: its part and local copies
  double seconds = 0;                // link_seconds + the slowest device's compute
};

struct PlanLatency {
  std::vector<StageLatency> stages;
  std::vector<double> device_instructions;  // per device, over every stage
  double compute_seconds = 0;  // sum over stages of the slowest device's compute
  double link_seconds = 0;     // every transfer over the shared link
  double seconds = 0;          // compute_seconds + link_seconds
};

// Predicts instructions of operator parts, caching prepared kernels (one per
// node and kernel form) and the instructions of every part it was asked for.
// Requires: `graph` and `table` outlive it.
class PartPredictor {
 public:
  PartPredictor(const ir::Graph& graph, const cost::CostTable& table) : graph_(graph), table_(table) {}

  // The instructions of one device computing `output_boxes` of `node` under
  // `split`, reading `input_boxes` (one per node input; empty for a constant
  // or absent input), as the plan's PartCompute says. Errors: a part no
  // kernel serves, or a kernel the table has no row for (cost/predict.h).
  Result<double> predict_part(ir::NodeId node, Split split, const std::vector<Box>& output_boxes,
                              const std::vector<Box>& input_boxes);

  // A copy of the elements of `box` (a local copy, an alias).
  Result<double> predict_copy(const Box& box) const;

 private:
  const ir::Graph& graph_;
  const cost::CostTable& table_;
  std::map<std::pair<ir::NodeId, Split>, PartKernel> kernels_;
  std::map<std::tuple<ir::NodeId, Split, std::vector<int64_t>>, double> parts_;
};

// Requires: plan built (build_device_plan) for the predictor's graph; model.table the predictor's.
Result<PlanLatency> predict_plan_latency(const DevicePlan& plan, const LatencyModel& model,
                                         PartPredictor& predictor);

}  // namespace tinyfit::devices
