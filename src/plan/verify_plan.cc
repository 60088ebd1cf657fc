#include "plan/verify_plan.h"

#include <string>

#include "ir/op_decl.h"
#include "partition/partition_scheme.h"
#include "plan/plan_memory.h"
#include "plan/plan_walk.h"
#include "plan/verify_placement.h"
#include "plan/verify_plan_dataflow.h"
#include "plan/verify_row_loop_overlaps.h"
#include "plan/verify_segment_calls.h"

namespace tinyfit::plan {
namespace {

std::string range_text(ir::Range range) {
  return "[" + std::to_string(range.begin) + ", " + std::to_string(range.end) + ")";
}

// Whether a loop over `axis` may sweep view axis `view_axis` of a view of
// `rank`: rows and cols are axes 1 and 2 of NHWC, channels the last axis;
// tokens are wherever a tensor's layout holds them ([tokens, features],
// [heads, tokens, head features], [tokens, heads, head features]: the
// operator declarations decide, partition/row_geometry.h find_loop_axes).
bool walks_view_axis(LoopAxis axis, int rank, int view_axis) {
  switch (axis) {
    case LoopAxis::kRows: return rank == 4 && view_axis == 1;
    case LoopAxis::kCols: return rank == 4 && view_axis == 2;
    case LoopAxis::kChannels: return view_axis == rank - 1;
    case LoopAxis::kTokens: return view_axis >= 0 && view_axis < rank;
  }
  return false;
}

bool is_monotone(const Bound& bound) { return bound.scale >= 0 && bound.divisor >= 1 && bound.low <= bound.high; }

// --- Structure and nests ------------------------------------------------------

Status check_loops(const std::vector<Step>& steps) {
  for (const Step& step : steps) {
    if (!step.is_loop()) continue;
    const Loop& loop = step.loop();
    if (loop.body.empty() || loop.tile < 1 || loop.tile > loop.extent) {
      return fail_plan("loop '" + loop.name + "' has tile " + std::to_string(loop.tile) + ", extent " +
                       std::to_string(loop.extent) + ", " + std::to_string(loop.body.size()) + " steps");
    }
    TINYFIT_RETURN_IF_ERROR(check_loops(loop.body));
  }
  return {};
}

Status check_view_structure(const ir::Graph& graph, const Plan& plan, const KernelCall& call, const View& view,
                            LoopNest nest) {
  if (view.buffer < 0 || static_cast<size_t>(view.buffer) >= plan.buffers.size()) {
    return fail_plan(describe_call(graph, call) + " names buffer " + std::to_string(view.buffer));
  }
  if (view.strides.size() != view.shape.size()) {
    return fail_plan(describe_call(graph, call) + ": a view has " + std::to_string(view.strides.size()) +
                     " strides for rank " + std::to_string(view.shape.size()));
  }
  std::vector<bool> swept(view.shape.size(), false);
  for (const Sweep& sweep : view.sweeps) {
    const std::string where = describe_call(graph, call) + ": a view of '" +
                              plan.buffers[static_cast<size_t>(view.buffer)].name + "' sweeps axis " +
                              std::to_string(sweep.axis) + " by loop " + std::to_string(sweep.loop);
    if (sweep.loop < 0 || static_cast<size_t>(sweep.loop) >= nest.size()) {
      return fail_plan(where + ", but the call is inside " + std::to_string(nest.size()) + " loops");
    }
    const Loop& loop = *nest[static_cast<size_t>(sweep.loop)];
    if (sweep.axis < 0 || sweep.axis >= view.rank() || swept[static_cast<size_t>(sweep.axis)]) {
      return fail_plan(where + ": out of range or swept twice");
    }
    swept[static_cast<size_t>(sweep.axis)] = true;
    if (!walks_view_axis(loop.axis, view.rank(), sweep.axis)) {
      return fail_plan(where + " '" + loop.name + "', which walks " + std::string(loop_axis_name(loop.axis)));
    }
    if (!is_monotone(sweep.first) || !is_monotone(sweep.last) || !is_monotone(sweep.base)) {
      return fail_plan(where + " with a decreasing bound (or a divisor below 1)");
    }
  }
  return {};
}

// The output follows a channel loop on its last axis (kChunk's chunk).
bool sweeps_channels(const View& view, LoopNest nest) {
  const Sweep* sweep = view.find_sweep(view.rank() - 1);
  return sweep != nullptr && nest[static_cast<size_t>(sweep->loop)]->axis == LoopAxis::kChannels;
}

// Every row / col axis the output sweeps maps to input axes by a window or
// one to one (ir::OpDecl::map_axes), so its input range is computable.
bool maps_swept_spatial_axes(const ir::Graph& graph, const ir::Node& node, const View& output) {
  const ir::AxisMap map = ir::op_decl(node.op).map_axes(graph, node);
  for (const Sweep& sweep : output.sweeps) {
    if (output.rank() != 4 || (sweep.axis != 1 && sweep.axis != 2)) continue;
    bool linked = false;
    for (const ir::AxisLink& link : map.links) {
      linked = linked || (link.output_axis == sweep.axis &&
                          (link.role == ir::AxisRole::kWindow || link.role == ir::AxisRole::kIdentity));
    }
    if (!linked) return false;
  }
  return true;
}

Status check_call_structure(const ir::Graph& graph, const Plan& plan, const KernelCall& call, LoopNest nest) {
  for (const auto* views : {&call.inputs, &call.outputs}) {
    for (const View& view : *views) TINYFIT_RETURN_IF_ERROR(check_view_structure(graph, plan, call, view, nest));
  }
  if (call.workspace >= 0 && static_cast<size_t>(call.workspace) >= plan.buffers.size()) {
    return fail_plan(describe_call(graph, call) + " names buffer " + std::to_string(call.workspace));
  }
  if (call.mode == CallMode::kCopy) {
    if (call.node >= 0 || call.inputs.size() != 1 || call.outputs.size() != 1) {
      return fail_plan(describe_call(graph, call) + ": a copy takes one input and one output, no node");
    }
    return {};
  }
  if (call.node < 0 || static_cast<size_t>(call.node) >= graph.nodes.size()) {
    return fail_plan("a call names node " + std::to_string(call.node));
  }
  if ((call.mode == CallMode::kChunk || call.mode == CallMode::kAccumulate) && nest.empty()) {
    return fail_plan(describe_call(graph, call) + " outside a loop");
  }
  const ir::Node& node = graph.nodes[static_cast<size_t>(call.node)];
  const ir::OpKind kind = ir::op_decl(node.op).kind(graph, node);
  const bool has_output = !call.outputs.empty();
  const bool chunk_ok = kind != ir::OpKind::kOther && has_output && sweeps_channels(call.outputs[0], nest);
  // A-type nodes by input channels; a global pool by rows (a row loop ending
  // at it, plan/lower_row_loop.h).
  const bool accumulate_ok = kind == ir::OpKind::kAggregating || partition::accumulates_rows(graph, node);
  if ((call.mode == CallMode::kChunk && !chunk_ok) ||
      ((call.mode == CallMode::kAccumulate || call.mode == CallMode::kFinalize) && !accumulate_ok)) {
    return fail_plan(describe_call(graph, call) + " does not fit the node's kind");
  }
  if (has_output && call.mode != CallMode::kFinalize && !maps_swept_spatial_axes(graph, node, call.outputs[0])) {
    return fail_plan(describe_call(graph, call) +
                     " computes a range of rows or cols of a node whose rows do not map to input rows");
  }
  return {};
}

// A model input or output is a whole buffer holding the whole tensor from its
// first byte (an in-place consumer or a Reshape alias shares that buffer and
// that start): the executor and the emitted C's zero-copy API address it there.
Status check_model_tensor(const ir::Graph& graph, const Plan& plan, ir::TensorId tensor_id, BufferId b,
                          const std::string& what) {
  const ir::Tensor& tensor = graph.tensor(tensor_id);
  if (b < 0 || static_cast<size_t>(b) >= plan.buffers.size()) {
    return fail_plan("model " + what + " '" + tensor.name + "' names buffer " + std::to_string(b));
  }
  const PlanBuffer& buffer = plan.buffers[static_cast<size_t>(b)];
  if (buffer.role == BufferRole::kPartial || buffer.role == BufferRole::kCarried ||
      buffer.role == BufferRole::kAccumulator || buffer.role == BufferRole::kWorkspace) {
    return fail_plan("model " + what + " '" + tensor.name + "' is in the " +
                     std::string(buffer_role_name(buffer.role)) + " buffer '" + buffer.name + "'");
  }
  if (ir::dtype_size_bytes(buffer.dtype) != ir::dtype_size_bytes(tensor.dtype) || buffer.bytes < tensor.size_bytes()) {
    return fail_plan("model " + what + " '" + tensor.name + "' (" + std::string(ir::dtype_name(tensor.dtype)) + ", " +
                     std::to_string(tensor.size_bytes()) + " bytes) is not held by buffer '" + buffer.name + "' (" +
                     std::string(ir::dtype_name(buffer.dtype)) + ", " + std::to_string(buffer.bytes) + " bytes)");
  }
  return {};
}

// --- Per iteration: bounds and windows ------------------------------------------

// Largest element index a view instance reaches (its start plus the farthest corner).
int64_t compute_last_element(const ViewInstance& view) {
  int64_t last = view.offset_elements;
  for (size_t a = 0; a < view.shape.size(); ++a) {
    if (view.shape[a] == 0) return view.offset_elements - 1;  // empty: reaches nothing
    last += (view.shape[a] - 1) * view.strides[a];
  }
  return last;
}

Status check_view_bounds(const ir::Graph& graph, const Plan& plan, const KernelCall& call, const View& view,
                         const ViewInstance& instance) {
  const PlanBuffer& buffer = plan.buffers[static_cast<size_t>(view.buffer)];
  const int64_t elements = buffer.bytes / ir::dtype_size_bytes(buffer.dtype);
  for (int64_t stride : instance.strides) {
    if (stride < 0) return fail_plan(describe_call(graph, call) + ": negative stride");
  }
  const int64_t last = compute_last_element(instance);
  const bool empty = instance.count_elements() == 0;  // addresses nothing
  if (!empty && (instance.offset_elements < 0 || last >= elements)) {
    return fail_plan(describe_call(graph, call) + ": a view of '" + buffer.name + "' reaches element " +
                     std::to_string(last) + " of " + std::to_string(elements) + " (starting at " +
                     std::to_string(instance.offset_elements) + ")");
  }
  for (const Sweep& sweep : view.sweeps) {
    const auto a = static_cast<size_t>(sweep.axis);
    if (instance.origin[a] < 0 || instance.origin[a] + instance.shape[a] > view.shape[a]) {
      return fail_plan(describe_call(graph, call) + ": a view of '" + buffer.name + "' shows indices " +
                       range_text({instance.origin[a], instance.origin[a] + instance.shape[a]}) + " of axis " +
                       std::to_string(sweep.axis) + ", which has " + std::to_string(view.shape[a]));
    }
  }
  return {};
}

ir::Range range_on(const ViewInstance& view, int axis) {
  const auto a = static_cast<size_t>(axis);
  return {view.origin[a], view.origin[a] + view.shape[a]};
}

// The windowed rule (verify_plan.h): on each swept output axis, what every
// linked input view shows against what the node reads there.
Status check_windows(const ir::Graph& graph, const KernelCall& call, const ViewInstance& output,
                     const std::vector<ViewInstance>& inputs, const View& output_view) {
  if (call.mode == CallMode::kCopy || call.mode == CallMode::kFinalize || output_view.sweeps.empty()) return {};
  const ir::Node& node = graph.nodes[static_cast<size_t>(call.node)];
  // Node input index -> call view index (views exist for activations only).
  std::vector<int> view_of_input(node.inputs.size(), -1);
  int next = 0;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] != ir::kNoTensor && !graph.tensor(node.inputs[i]).is_constant) view_of_input[i] = next++;
  }
  const ir::AxisMap map = ir::op_decl(node.op).map_axes(graph, node);
  for (const ir::AxisLink& link : map.links) {
    if (output_view.find_sweep(link.output_axis) == nullptr) continue;
    const int v = link.input_index < static_cast<int>(view_of_input.size())
                      ? view_of_input[static_cast<size_t>(link.input_index)]
                      : -1;
    if (v < 0 || static_cast<size_t>(v) >= inputs.size()) continue;
    const ViewInstance& input = inputs[static_cast<size_t>(v)];
    const int64_t extent = graph.tensor(node.inputs[static_cast<size_t>(link.input_index)])
                               .shape.at(static_cast<size_t>(link.input_axis));
    const ir::Range out = range_on(output, link.output_axis);
    const ir::Range shown = range_on(input, link.input_axis);
    const ir::Range whole{0, extent};
    ir::Range needed;
    bool ok = false;
    switch (link.role) {
      case ir::AxisRole::kWindow:
        needed = ir::input_range(link.window, out, extent);
        ok = needed.size() <= 0 || (shown.begin <= needed.begin && needed.end <= shown.end);
        break;
      case ir::AxisRole::kIdentity:
        needed = link.broadcast ? whole : out;
        ok = shown == needed || shown == whole;
        break;
      case ir::AxisRole::kGrouped:
        needed = {out.begin / link.factor, (out.end + link.factor - 1) / link.factor};
        ok = shown == needed || shown == whole;
        break;
      case ir::AxisRole::kPermuted:  // a part of the output reads across the whole axis
        needed = whole;
        ok = shown == whole;
        break;
      case ir::AxisRole::kResampled:
        needed = out.size() <= 0 ? ir::Range{} : ir::Range{link.reads[static_cast<size_t>(out.begin)].begin,
                                                           link.reads[static_cast<size_t>(out.end - 1)].end};
        ok = needed.size() <= 0 || (shown.begin <= needed.begin && needed.end <= shown.end);
        break;
    }
    if (!ok) {
      return fail_plan(describe_call(graph, call) + ": output indices " + range_text(out) + " of axis " +
                       std::to_string(link.output_axis) + " read indices " + range_text(needed) + " of input " +
                       std::to_string(link.input_index) + ", but its view shows " + range_text(shown));
    }
  }
  return {};
}

}  // namespace

Status verify_plan(const ir::Graph& graph, const Plan& plan) {
  if (plan.inputs.size() != graph.inputs.size() || plan.outputs.size() != graph.outputs.size()) {
    return fail_plan(std::to_string(plan.inputs.size()) + " input and " + std::to_string(plan.outputs.size()) +
                     " output buffers for a graph of " + std::to_string(graph.inputs.size()) + " and " +
                     std::to_string(graph.outputs.size()));
  }
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    TINYFIT_RETURN_IF_ERROR(check_model_tensor(graph, plan, graph.inputs[i], plan.inputs[i], "input"));
  }
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    TINYFIT_RETURN_IF_ERROR(check_model_tensor(graph, plan, graph.outputs[i], plan.outputs[i], "output"));
  }
  TINYFIT_RETURN_IF_ERROR(check_loops(plan.steps));
  TINYFIT_RETURN_IF_ERROR(walk_calls(plan.steps, [&](const KernelCall& call, LoopNest nest) {
    return check_call_structure(graph, plan, call, nest);
  }));

  DataflowChecker dataflow(graph, plan);
  InstanceVisitor visitor;
  visitor.iteration = [&](std::span<const LoopChunk> nest) -> Status {
    dataflow.start_iteration(nest);
    return {};
  };
  visitor.call = [&](const KernelCall& call, std::span<const LoopChunk> nest) -> Status {
    std::vector<ViewInstance> inputs, outputs;
    for (const View& view : call.inputs) {
      inputs.push_back(resolve_view(view, nest));
      TINYFIT_RETURN_IF_ERROR(check_view_bounds(graph, plan, call, view, inputs.back()));
    }
    for (const View& view : call.outputs) {
      outputs.push_back(resolve_view(view, nest));
      TINYFIT_RETURN_IF_ERROR(check_view_bounds(graph, plan, call, view, outputs.back()));
    }
    if (!outputs.empty()) TINYFIT_RETURN_IF_ERROR(check_windows(graph, call, outputs[0], inputs, call.outputs[0]));
    return dataflow.check_call(call, nest);
  };
  TINYFIT_RETURN_IF_ERROR(walk_call_instances(plan.steps, visitor));
  TINYFIT_RETURN_IF_ERROR(dataflow.check_outputs());
  TINYFIT_RETURN_IF_ERROR(verify_segment_calls(graph, plan));
  TINYFIT_RETURN_IF_ERROR(verify_row_loop_overlaps(plan));

  if (plan.arena_bytes > 0) {
    const PlanMemory memory = compute_plan_memory(plan);
    Placement placement;
    placement.algorithm = "plan";
    placement.arena_bytes = plan.arena_bytes;
    for (const PlanBuffer& buffer : plan.buffers) placement.offsets.push_back(buffer.offset);
    TINYFIT_RETURN_IF_ERROR(verify_placement(memory.buffers, placement));
  }
  return {};
}

}  // namespace tinyfit::plan
