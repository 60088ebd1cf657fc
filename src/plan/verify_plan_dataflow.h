// verify_plan's dataflow rule (verify_plan.h), on its own: which buffers, and
// in row-swept buffers which elements, hold data when each call instance
// runs. Internal to plan/ (verify_plan.cc drives it over the instances).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::plan {

// "plan: <problem>" as an internal error (verify_plan's failures are our bugs).
tl::unexpected<Diag> fail_plan(std::string problem);

// "call of node 'c' (chunk)" / "call 'copy'", for messages.
std::string describe_call(const ir::Graph& graph, const KernelCall& call);

class DataflowChecker {
 public:
  // Requires: the plan passed verify_plan's structure checks.
  DataflowChecker(const ir::Graph& graph, const Plan& plan);

  // At the start of each iteration of nest.back(): forgets the kPartial
  // buffers whose home loop it is.
  void start_iteration(std::span<const LoopChunk> nest);
  // Reads, then writes, of one call instance.
  Status check_call(const KernelCall& call, std::span<const LoopChunk> nest);
  Status check_outputs() const;

 private:
  // What an element of a tracked buffer holds: element `index` (row-major in
  // its tensor) written by node `producer` (-1: the caller); 0 = nothing.
  static int64_t make_tag(ir::NodeId producer, int64_t index);
  std::string describe_tag_producer(int64_t tag) const;

  Status read_elements(const KernelCall& call, const View& view, const ViewInstance& instance,
                       ir::NodeId producer);
  void write_elements(const ViewInstance& instance, const View& view, ir::NodeId producer);
  Status copy_elements(const KernelCall& call, std::span<const LoopChunk> nest);
  // The node whose data a tensor holds: its producer, through alias operators.
  ir::NodeId find_data_producer(ir::TensorId tensor) const;

  const ir::Graph& graph_;
  const Plan& plan_;
  std::vector<ir::NodeId> producers_;
  std::vector<bool> written_;                // per buffer (untracked buffers)
  std::vector<bool> tracked_;                // per buffer: some view sweeps it by rows or cols
  std::vector<std::vector<int64_t>> tags_;   // per tracked buffer, per element
  std::vector<const Loop*> partial_home_;    // per kPartial buffer: the innermost loop around all its uses
};

}  // namespace tinyfit::plan
