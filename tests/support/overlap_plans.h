// A plan of one call that computes the whole graph (fused when the graph has
// more than one node) with a declared overlap (plan/plan.h DeclaredOverlap):
// its output `offset` bytes from its input, the input placed so both fit at
// or after 0, the fused kernel's ring workspace after both. The segment
// kernels' tests run such plans against the reference; the latency model's
// probes (bench/cost) measure them.
#pragma once

#include <algorithm>
#include <optional>

#include "plan/plan.h"
#include "plan/segment_call.h"
#include "plan/segment_closed_form.h"

namespace tinyfit::plan::testing {

inline constexpr int64_t kOverlapAlignmentBytes = 4;  // plan/placement_input.h kDefaultAlignmentBytes

// The call that computes every node of the graph: its first, the others fused.
inline plan::KernelCall make_whole_graph_call(const ir::Graph& graph) {
  plan::KernelCall call;
  call.node = 0;
  for (size_t n = 1; n < graph.nodes.size(); ++n) call.fused.push_back(static_cast<ir::NodeId>(n));
  return call;
}

// Requires: graph has one input and one output and a segment kernel computes
// its nodes in order (plan::describe_segment_call). `offset_bytes`: the
// output's start less the input's; empty: the one the compiler would choose
// (plan::choose_overlap_offset at the derived limit).
inline Result<plan::Plan> make_one_call_overlap_plan(const ir::Graph& graph, plan::Traversal traversal,
                                                     std::optional<int64_t> offset_bytes = std::nullopt) {
  plan::KernelCall call = make_whole_graph_call(graph);
  TINYFIT_ASSIGN_OR_RETURN(const plan::SegmentKernel record, plan::describe_segment_call(graph, call, traversal));
  const int64_t offset = offset_bytes.value_or(
      plan::choose_overlap_offset(record, plan::compute_overlap_limit(record), kOverlapAlignmentBytes));
  const ir::Tensor& x = graph.tensor(graph.inputs[0]);
  const ir::Tensor& y = graph.tensor(graph.outputs[0]);
  plan::Plan plan;
  const int64_t input_at = std::max<int64_t>(0, -offset);
  plan.buffers.push_back(
      {x.name, plan::BufferRole::kModelInput, x.dtype, record.input_bytes(), kOverlapAlignmentBytes, input_at});
  plan.buffers.push_back({y.name, plan::BufferRole::kModelOutput, y.dtype, record.output_bytes(),
                          kOverlapAlignmentBytes, input_at + offset});
  int64_t end = std::max(input_at + record.input_bytes(), input_at + offset + record.output_bytes());
  if (record.op == plan::SegmentOp::kInvertedBottleneck) {
    const int64_t workspace = plan::compute_inverted_bottleneck_workspace_bytes(record);
    end = (end + kOverlapAlignmentBytes - 1) / kOverlapAlignmentBytes * kOverlapAlignmentBytes;
    plan.buffers.push_back({"workspace", plan::BufferRole::kWorkspace, x.dtype, workspace, kOverlapAlignmentBytes, end});
    call.workspace = 2;
    end += workspace;
  }
  plan.inputs = {0};
  plan.outputs = {1};
  call.inputs = {plan::make_dense_view(0, x.shape)};
  call.outputs = {plan::make_dense_view(1, y.shape)};
  call.overlap = plan::DeclaredOverlap{0, traversal, offset};
  plan.steps.push_back({std::move(call)});
  plan.arena_bytes = end;
  return plan;
}

}  // namespace tinyfit::plan::testing
