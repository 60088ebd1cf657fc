// search-partition: tinyfit's latency search over per-operator splits
// (issue 14 §2, `--partition search`): the choice of every operator (whole
// on one device, or cout / fmh / len over several) that minimises the
// predicted latency of device_latency.h under every device's SRAM (and
// flash).
//
// The DP (search_latency_dp) walks the operator order; its state is the
// choice of the current operator, and a transition from the previous
// operator's choice costs the stage of device_latency.h: the link bytes the
// current operator's parts read from other devices' parts of its inputs,
// the local copies a device makes when its own part and the box it reads do
// not share one buffer, and the slowest device's part (all exactly as
// build_device_plan makes them), plus, after the last operator, the gather of
// the graph outputs on device 0. An input made by an operator other than the
// previous one (a residual) takes its producer's choice from the state's
// best path (back pointers), so the DP is exact on chains (every operator
// reads only the previous one's output): its value is then the minimum of
// predict_plan_latency over every plan of list_operator_choices' choices
// (devices_test.cc checks it against exhaustive search), and a heuristic
// otherwise (a tensor read by several consumers on one device is also
// charged once per consumer there, where the plan receives it once).
//
// Memory: a choice is admitted when, on every device it runs on, its output
// part plus the buffers its input boxes need (plus its own part of an input
// held apart) are within `budget_fraction` of the device's SRAM: a local
// bound, which does not see the other tensors live on the device, nor flash.
// So search_partition runs the DP at budget fractions 1, 3/4, 1/2, 3/8, 1/4
// and 1/8 (a tighter local budget forces smaller parts) until its plan
// fits, builds and places each plan and checks it against the limits (a
// tighter budget admits fewer choices, so the first plan that fits is the
// DP's fastest that fits), adds k1/k2's and min-memory's plans and the
// one-device plans (every operator whole on device 0, and on the device with
// the most SRAM),
// and keeps the fastest that fits; when none fits, the one whose largest
// excess over a device's limit is smallest (the faster among equals). Its
// latency is thus never above k1/k2's, min-memory's or one device's when
// those fit.
#pragma once

#include <string>
#include <vector>

#include "devices/device_latency.h"
#include "devices/device_plan.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::devices {

// The choices the search considers for `node`: whole on each device; cout,
// fmh and len (where serves_split holds) over the k devices with the most
// SRAM (lowest ids among equals), for k = 2 .. n (n > 8: k = 2, 4, 8, ..
// and n).
std::vector<OperatorChoice> list_operator_choices(const ir::Graph& graph, ir::NodeId node, const DeviceLimits& limits);

struct DpResult {
  std::vector<OperatorChoice> choices;  // one per node, in `order`
  double seconds = 0;                   // the DP's latency of them (see above)
  bool within_local_budget = true;      // false: some operator had no admitted choice, and ran its fastest
};

// Requires: `order` a topological order of every node of graph;
// model.table set, model.link_bytes_per_second > 0; 0 < budget_fraction.
// Errors: an operator none of whose choices the latency model can predict
// (cost/predict.h's error).
Result<DpResult> search_latency_dp(const ir::Graph& graph, const std::vector<ir::NodeId>& order,
                                   const DeviceLimits& limits, const LatencyModel& model, PartPredictor& predictor,
                                   double budget_fraction);

struct SearchCandidate {
  std::string name;          // "dp at 1/2 of SRAM", "k1k2", "min-memory", "one device (0)"
  double seconds = 0;        // predict_plan_latency of its built plan
  int64_t excess_bytes = 0;  // the largest amount by which a device's arena or flash exceeds its limit (0: fits)
  bool fits() const { return excess_bytes == 0; }
};

struct SearchResult {
  std::vector<OperatorChoice> choices;
  std::vector<SearchCandidate> candidates;  // every plan compared
  int chosen = 0;                           // index into candidates
};

// Requires: as search_latency_dp.
Result<SearchResult> search_partition(const ir::Graph& graph, const std::vector<ir::NodeId>& order,
                                      const DeviceLimits& limits, const LatencyModel& model, PartPredictor& predictor);

// The largest excess of a placed plan's arena or flash over its device's
// limit (flash limit 0 or absent: unlimited); 0 when it fits.
int64_t count_excess_bytes(const DevicePlan& plan, const DeviceLimits& limits);

}  // namespace tinyfit::devices
