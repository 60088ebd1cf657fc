// The plan buffers a lowering makes for the tensors of a BufferGraph (PEX,
// row loops): each BufferGraph buffer a call touches whole gets one plan
// buffer, made on first use so that buffers only seen in chunks or carried
// rows get none; workspaces get one per call; loop-local buffers (partial,
// carried, accumulators) are added by the lowering itself.
#pragma once

#include <vector>

#include "analysis/buffer_graph.h"
#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::plan {

// The role of a BufferGraph buffer held whole: model input, model output or
// an intermediate activation.
BufferRole whole_buffer_role(const analysis::Buffer& buffer);

class LoweringBuffers {
 public:
  // Requires: `plan` outlives this object; buffers are added to it only
  // through add() while this object is used.
  LoweringBuffers(const ir::Graph& graph, const analysis::BufferGraph& bg, Plan& plan);

  // The BufferGraph buffer holding tensor t (checked: every activation has one).
  int buffer_of(ir::TensorId t) const;
  // The element type of BufferGraph buffer b (its first tensor's).
  ir::DType dtype_of(int b) const { return dtype_.at(static_cast<size_t>(b)); }

  BufferId add(PlanBuffer buffer);
  // The plan buffer holding BufferGraph buffer b whole, made on first use.
  BufferId whole(int b);
  // Makes `id` the buffer holding b whole (an output finalised over its
  // accumulator). Requires: b has no whole buffer yet.
  void bind_whole(int b, BufferId id);
  // A dense view of tensor t in its whole buffer.
  View whole_view(ir::TensorId t) { return make_dense_view(whole(buffer_of(t)), graph_.tensor(t).shape); }
  // The workspace of one call of `op`, or -1 when it needs none.
  BufferId add_workspace(const analysis::Operator& op);
  // One kWhole call of BufferGraph operator `op_index` over whole buffers.
  KernelCall make_whole_call(int op_index);
  // Lists the whole buffers of the graph's inputs and outputs as the plan's.
  void add_graph_inputs_and_outputs();

 private:
  const ir::Graph& graph_;
  const analysis::BufferGraph& bg_;
  Plan& plan_;
  std::vector<BufferId> whole_;   // per BufferGraph buffer, -1 until used
  std::vector<ir::DType> dtype_;  // per BufferGraph buffer
};

}  // namespace tinyfit::plan
