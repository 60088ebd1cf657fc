#include "exec/plan_work.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "exec/kernel_call.h"
#include "partition/partition_scheme.h"
#include "plan/plan_walk.h"

namespace tinyfit::exec {
namespace {

// One runtime call a plan call makes, and the views it reads and writes
// (indices into KernelCall::inputs / outputs, -1 for none).
struct RuntimeCall {
  std::string function;
  int first_input = -1;
  int first_output = -1;
};

// A CallEmitter that writes nothing: it notes each runtime call and which
// views its arguments name.
class CallRecorder final : public CallEmitter {
 public:
  std::string define_array(std::string_view, std::string_view, std::span<const uint8_t>) override { return "a"; }
  std::string define_struct(std::string_view, std::string_view,
                            const std::vector<std::pair<std::string, std::string>>&) override {
    return "s";
  }
  std::string input_view(size_t i) const override { return kInput + std::to_string(i); }
  std::string output_view(size_t i) const override { return kOutput + std::to_string(i); }
  std::string workspace() const override { return "w"; }
  std::string workspace_bytes() const override { return "0"; }
  std::string chunk_begin() const override { return "0"; }
  std::string chunk_end() const override { return "0"; }
  std::string first_iteration() const override { return "1"; }
  void call(std::string_view, std::string_view function, const std::vector<std::string>& arguments) override {
    RuntimeCall call{std::string(function)};
    for (const std::string& argument : arguments) {
      if (call.first_input < 0 && argument.starts_with(kInput)) {
        call.first_input = std::stoi(argument.substr(kInput.size()));
      } else if (call.first_output < 0 && argument.starts_with(kOutput)) {
        call.first_output = std::stoi(argument.substr(kOutput.size()));
      }
    }
    calls.push_back(std::move(call));
  }

  std::vector<RuntimeCall> calls;

 private:
  static inline const std::string kInput = "@input", kOutput = "@output";
};

Result<std::vector<RuntimeCall>> list_runtime_calls(const PreparedKernel& kernel) {
  CallRecorder recorder;
  TINYFIT_RETURN_IF_ERROR(kernel.emit(recorder));
  return std::move(recorder.calls);
}

Result<std::vector<RuntimeCall>> list_runtime_calls(const ir::Graph& graph, const plan::Plan& plan,
                                                    const plan::KernelCall& call) {
  TINYFIT_ASSIGN_OR_RETURN(std::unique_ptr<PreparedKernel> kernel,
                           prepare_kernel(KernelCallContext{graph, plan, call, true}));
  return list_runtime_calls(*kernel);
}

// The node coordinates a view instance covers: from its origin, its extents.
std::vector<ir::Range> describe_written_ranges(const plan::ViewInstance& view) {
  std::vector<ir::Range> ranges;
  for (int a = 0; a < view.rank(); ++a) {
    const auto i = static_cast<size_t>(a);
    ranges.push_back({view.origin[i], view.origin[i] + view.shape[i]});
  }
  return ranges;
}

// The share of the node's per-element work one call does (cost::CallGeometry):
// an accumulate call does the input channels its input view shows.
double find_work_share(const ir::Graph& graph, const plan::KernelCall& call, const plan::ViewInstance* input) {
  switch (call.mode) {
    case plan::CallMode::kWhole:
    case plan::CallMode::kChunk: return 1.0;
    case plan::CallMode::kFinalize:
    case plan::CallMode::kCopy: return 0.0;
    case plan::CallMode::kAccumulate: {
      const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
      if (partition::accumulates_rows(graph, node)) {  // a global pool: the rows its input view shows
        const ir::Shape& shape = graph.input_tensor(node, 0).shape;
        return input != nullptr ? static_cast<double>(input->shape[1]) / static_cast<double>(shape[1]) : 1.0;
      }
      const int64_t channels = graph.input_tensor(node, 0).shape.back();
      return input != nullptr && channels > 0 ? static_cast<double>(input->shape.back()) / static_cast<double>(channels)
                                              : 1.0;
    }
  }
  return 1.0;
}

// A fused call (plan::KernelCall::fused: a segment kernel computing a chain):
// cost::compute_fused_call_features.
cost::FeatureVector compute_fused_features(const ir::Graph& graph, const plan::KernelCall& call) {
  std::vector<const ir::Node*> nodes = {&graph.nodes.at(static_cast<size_t>(call.node))};
  for (const ir::NodeId id : call.fused) nodes.push_back(&graph.nodes.at(static_cast<size_t>(id)));
  return cost::compute_fused_call_features(graph, nodes);
}

// Whether the view's elements lie back to back (axes of extent 1 may have any
// stride): tf_x8_copy's test for its fast path.
bool is_dense(const plan::ViewInstance& view) {
  int64_t next = 1;
  for (int a = view.rank() - 1; a >= 0; --a) {
    const auto i = static_cast<size_t>(a);
    if (view.shape[i] != 1 && view.strides[i] != next) return false;
    next *= view.shape[i];
  }
  return true;
}

// Whether a rank-4 view's pixels are evenly spaced (rows back to back, images
// of rows): the im2col kernels' test for their dense pointwise path.
bool has_even_pixels(const plan::ViewInstance& view) {
  if (view.rank() != 4) return false;
  return view.strides[1] == view.shape[2] * view.strides[2] &&
         (view.shape[0] == 1 || view.strides[0] == view.shape[1] * view.strides[1]);
}

// `input(i)` / `output(i)`: the call's i-th view as this instance sees it;
// `plan`: the plan whose buffers they name (a copy's element bytes), or
// nullptr for a call that computes a node.
void add_runtime_calls(const ir::Graph& graph, const plan::Plan* plan, const plan::KernelCall& call,
                       const std::vector<RuntimeCall>& calls, bool in_loop,
                       const std::function<plan::ViewInstance(size_t)>& input_view,
                       const std::function<plan::ViewInstance(size_t)>& output_view, cost::PlanWork& work) {
  for (const RuntimeCall& runtime : calls) {
    if (!call.fused.empty()) {
      work.add_call(runtime.function, compute_fused_features(graph, call));
      continue;
    }
    cost::CallGeometry geometry;
    geometry.graph = &graph;
    geometry.node = call.node >= 0 ? &graph.nodes.at(static_cast<size_t>(call.node)) : nullptr;
    geometry.in_loop = in_loop;
    std::optional<plan::ViewInstance> input;
    if (runtime.first_input >= 0) {
      input = input_view(static_cast<size_t>(runtime.first_input));
      geometry.read_elements = input->count_elements();
      geometry.even_pixels = has_even_pixels(*input);
    }
    if (runtime.first_output >= 0) {
      const plan::ViewInstance output = output_view(static_cast<size_t>(runtime.first_output));
      // A copy onto its own source does nothing (tf_x8_copy returns at once).
      const bool in_place_copy = call.mode == plan::CallMode::kCopy && input && input->buffer == output.buffer &&
                                 input->offset_elements == output.offset_elements;
      if (!in_place_copy) geometry.written = describe_written_ranges(output);
      geometry.even_pixels = geometry.even_pixels && has_even_pixels(output);
      if (call.mode == plan::CallMode::kCopy) {
        TINYFIT_CHECK(plan != nullptr && input) << "a copy counted without its plan or input view";
        geometry.element_bytes = ir::dtype_size_bytes(plan->buffers.at(static_cast<size_t>(output.buffer)).dtype);
        geometry.dense_copy = is_dense(*input) && is_dense(output);
      }
    }
    geometry.work_share = find_work_share(graph, call, input ? &*input : nullptr);
    work.add_call(runtime.function, cost::compute_call_features(geometry));
  }
}

void add_runtime_calls(const ir::Graph& graph, const plan::Plan& plan, const plan::KernelCall& call,
                       const std::vector<RuntimeCall>& calls, std::span<const plan::LoopChunk> nest,
                       cost::PlanWork& work) {
  add_runtime_calls(
      graph, &plan, call, calls, !nest.empty(), [&](size_t i) { return plan::resolve_view(call.inputs.at(i), nest); },
      [&](size_t i) { return plan::resolve_view(call.outputs.at(i), nest); }, work);
}

// Walks every call instance of the plan with the runtime calls it makes:
// `add(call, work)` receives each instance's work, `iteration` each loop
// iteration's nest (as plan::InstanceVisitor::iteration).
Status walk_runtime_work(const ir::Graph& graph, const plan::Plan& plan,
                         const std::function<void(const plan::KernelCall&, const cost::PlanWork&)>& add,
                         const std::function<void(std::span<const plan::LoopChunk>)>& iteration) {
  // Each call is prepared once; its views change per iteration.
  std::map<const plan::KernelCall*, std::vector<RuntimeCall>> runtime_calls;
  TINYFIT_RETURN_IF_ERROR(plan::walk_calls(plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) -> Status {
    TINYFIT_ASSIGN_OR_RETURN(runtime_calls[&call], list_runtime_calls(graph, plan, call));
    return {};
  }));
  plan::InstanceVisitor visitor;
  visitor.call = [&](const plan::KernelCall& call, std::span<const plan::LoopChunk> nest) -> Status {
    cost::PlanWork instance;
    add_runtime_calls(graph, plan, call, runtime_calls.at(&call), nest, instance);
    add(call, instance);
    return {};
  };
  visitor.iteration = [&](std::span<const plan::LoopChunk> nest) -> Status {
    iteration(nest);
    return {};
  };
  return plan::walk_call_instances(plan.steps, visitor);
}

}  // namespace

Result<cost::PlanWork> count_plan_work(const ir::Graph& graph, const plan::Plan& plan) {
  cost::PlanWork work;
  cost::at(work.run, cost::RunFeature::kRuns) = 1;
  TINYFIT_RETURN_IF_ERROR(walk_runtime_work(
      graph, plan, [&](const plan::KernelCall&, const cost::PlanWork& instance) { work.add(instance); },
      [&](std::span<const plan::LoopChunk> nest) {
        if (nest.back().iteration == 0) cost::at(work.run, cost::RunFeature::kLoops) += 1;
        cost::at(work.run, cost::RunFeature::kLoopIterations) += 1;
      }));
  return work;
}

Result<std::map<const plan::KernelCall*, cost::PlanWork>> count_call_work(const ir::Graph& graph,
                                                                          const plan::Plan& plan) {
  std::map<const plan::KernelCall*, cost::PlanWork> work;
  TINYFIT_RETURN_IF_ERROR(walk_runtime_work(
      graph, plan, [&](const plan::KernelCall& call, const cost::PlanWork& instance) { work[&call].add(instance); },
      [](std::span<const plan::LoopChunk>) {}));
  return work;
}

Result<cost::PlanWork> count_kernel_work(const ir::Graph& graph, const plan::KernelCall& call,
                                         const PreparedKernel& kernel, std::span<const plan::ViewInstance> inputs,
                                         std::span<const plan::ViewInstance> outputs) {
  TINYFIT_ASSIGN_OR_RETURN(const std::vector<RuntimeCall> calls, list_runtime_calls(kernel));
  cost::PlanWork work;
  add_runtime_calls(
      graph, nullptr, call, calls, false,
      [&](size_t i) {
        TINYFIT_CHECK(i < inputs.size()) << "count_kernel_work: no input view " << i;
        return inputs[i];
      },
      [&](size_t i) {
        TINYFIT_CHECK(i < outputs.size()) << "count_kernel_work: no output view " << i;
        return outputs[i];
      },
      work);
  return work;
}

}  // namespace tinyfit::exec
