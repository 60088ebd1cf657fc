#include "plan/verify_segment_calls.h"

#include <set>
#include <string>

#include "plan/plan_walk.h"
#include "plan/segment_call.h"
#include "plan/segment_closed_form.h"
#include "plan/segment_simulation.h"

namespace tinyfit::plan {
namespace {

tl::unexpected<Diag> fail_call(const ir::Graph& graph, const KernelCall& call, const std::string& problem) {
  return fail("plan: call of node '" + graph.nodes.at(static_cast<size_t>(call.node)).name + "' " + problem,
              ExitCode::kInternal);
}

bool is_dense(const View& view) { return view.sweeps.empty() && view.strides == ir::compute_strides(view.shape); }

int64_t count_view_bytes(const Plan& plan, const View& view) {
  int64_t elements = 1;
  for (int64_t extent : view.shape) elements *= extent;
  return elements * ir::dtype_size_bytes(plan.buffers.at(static_cast<size_t>(view.buffer)).dtype);
}

// Every call with its position (calls in program order, a loop body once),
// and whether it sits in a loop.
struct PlacedCall {
  const KernelCall* call;
  int position;
  bool in_loop;
};

std::vector<PlacedCall> list_calls(const Plan& plan) {
  std::vector<PlacedCall> calls;
  const Status walked = walk_calls(plan.steps, [&](const KernelCall& call, LoopNest nest) -> Status {
    calls.push_back({&call, static_cast<int>(calls.size()), !nest.empty()});
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  return calls;
}

Status verify_overlap(const ir::Graph& graph, const Plan& plan, const std::vector<PlacedCall>& calls,
                      const PlacedCall& at) {
  const KernelCall& call = *at.call;
  const DeclaredOverlap& overlap = *call.overlap;
  if (at.in_loop) return fail_call(graph, call, "declares an overlap inside a loop");
  if (overlap.input < 0 || static_cast<size_t>(overlap.input) >= call.inputs.size() || call.outputs.size() != 1) {
    return fail_call(graph, call, "declares an overlap with input view " + std::to_string(overlap.input) + " of " +
                                      std::to_string(call.inputs.size()) + " and " +
                                      std::to_string(call.outputs.size()) + " output views");
  }
  const View& input = call.inputs[static_cast<size_t>(overlap.input)];
  const View& output = call.outputs[0];
  if (!is_dense(input) || !is_dense(output) || input.buffer == output.buffer) {
    return fail_call(graph, call, "declares an overlap between views that are not dense views of two buffers");
  }
  Result<SegmentKernel> kernel = describe_segment_call(graph, call, overlap.traversal);
  if (!kernel) return fail_call(graph, call, "declares an overlap: " + kernel.error().message);
  if (count_view_bytes(plan, input) != kernel->input_bytes() ||
      count_view_bytes(plan, output) != kernel->output_bytes()) {
    return fail_call(graph, call, "declares an overlap over views of other sizes than its kernel reads and writes");
  }
  const OverlapLimit limit = simulate_overlap_limit(*kernel);
  if (!is_safe_offset(limit, overlap.offset_bytes)) {
    return fail_call(graph, call, "declares its output " + std::to_string(overlap.offset_bytes) +
                                      " bytes from its input; its " + std::string(traversal_name(overlap.traversal)) +
                                      " kernel allows " + (overlap.traversal == Traversal::kAscending ? "at most " : "at least ") +
                                      std::to_string(*limit.limit_bytes));
  }
  for (BufferId b : plan.outputs) {
    if (b == input.buffer) return fail_call(graph, call, "overwrites model output '" + plan.buffers[static_cast<size_t>(b)].name + "'");
  }
  for (const PlacedCall& later : calls) {
    if (later.position > at.position && later.call->uses_buffer(input.buffer)) {
      return fail_call(graph, call, "overwrites '" + plan.buffers[static_cast<size_t>(input.buffer)].name +
                                        "', which a later call still uses");
    }
  }
  return {};
}

Status verify_fused(const ir::Graph& graph, const Plan& plan, const KernelCall& call) {
  if (call.mode != CallMode::kWhole) return fail_call(graph, call, "fuses nodes outside whole mode");
  for (ir::NodeId id : call.fused) {
    if (id < 0 || static_cast<size_t>(id) >= graph.nodes.size()) return fail_call(graph, call, "fuses node " + std::to_string(id));
  }
  Result<SegmentKernel> kernel = describe_segment_call(graph, call, Traversal::kAscending);
  if (!kernel) return fail_call(graph, call, "fuses nodes no kernel computes together: " + kernel.error().message);
  if (call.inputs.size() != 1 || call.outputs.size() != 1) {
    return fail_call(graph, call, "fuses nodes with " + std::to_string(call.inputs.size()) + " input and " +
                                      std::to_string(call.outputs.size()) + " output views");
  }
  // The tensors between the fused nodes exist only inside the kernel.
  const std::vector<ir::NodeId> nodes = call.computed_nodes();
  const std::set<ir::NodeId> fused_set(nodes.begin(), nodes.end());
  const std::vector<std::vector<ir::NodeId>> consumers = graph.compute_consumers();
  const std::set<ir::TensorId> model_outputs(graph.outputs.begin(), graph.outputs.end());
  for (size_t i = 0; i + 1 < nodes.size(); ++i) {
    const ir::TensorId t = graph.nodes[static_cast<size_t>(nodes[i])].outputs[0];
    for (ir::NodeId reader : consumers[static_cast<size_t>(t)]) {
      if (!fused_set.contains(reader) || model_outputs.contains(t)) {
        return fail_call(graph, call, "fuses away '" + graph.tensor(t).name + "', which is read outside the call");
      }
    }
  }
  const int64_t needed = compute_inverted_bottleneck_workspace_bytes(*kernel);
  const int64_t held = call.workspace < 0 ? 0 : plan.buffers.at(static_cast<size_t>(call.workspace)).bytes;
  if (held < needed) {
    return fail_call(graph, call, "has " + std::to_string(held) + " bytes of workspace; its kernel needs " +
                                      std::to_string(needed));
  }
  return {};
}

}  // namespace

Status verify_segment_calls(const ir::Graph& graph, const Plan& plan) {
  const std::vector<PlacedCall> calls = list_calls(plan);
  std::set<BufferId> overlap_outputs;
  for (const PlacedCall& at : calls) {
    const KernelCall& call = *at.call;
    if (!call.fused.empty()) TINYFIT_RETURN_IF_ERROR(verify_fused(graph, plan, call));
    if (!call.overlap) continue;
    TINYFIT_RETURN_IF_ERROR(verify_overlap(graph, plan, calls, at));
    if (!overlap_outputs.insert(call.outputs[0].buffer).second) {
      return fail_call(graph, call, "writes a buffer another declared overlap also anchors");
    }
  }
  return {};
}

}  // namespace tinyfit::plan
