#include "exec/plan_executor.h"

#include <cstring>
#include <memory>
#include <string>

#include "exec/kernel_call.h"

namespace tinyfit::exec {
namespace {

// One call, prepared, with its views in plan form.
struct ReadyCall {
  const plan::KernelCall* call = nullptr;
  std::unique_ptr<PreparedKernel> kernel;
};

class Executor {
 public:
  Executor(const ir::Graph& graph, const plan::Plan& plan)
      : graph_(graph), plan_(plan), arena_(static_cast<size_t>(plan.arena_bytes), kArenaPoisonByte) {}

  Result<ReadyCall> prepare(const plan::KernelCall& call) {
    TINYFIT_ASSIGN_OR_RETURN(std::unique_ptr<PreparedKernel> kernel,
                             prepare_kernel(KernelCallContext{graph_, plan_, call}));
    return ReadyCall{&call, std::move(kernel)};
  }

  uint8_t* buffer_base(plan::BufferId b) {
    const plan::PlanBuffer& buffer = plan_.buffers.at(static_cast<size_t>(b));
    TINYFIT_CHECK(buffer.offset >= 0 && buffer.offset + buffer.bytes <= plan_.arena_bytes)
        << "buffer '" << buffer.name << "' is not placed inside the arena";
    return arena_.data() + buffer.offset;
  }

  void run(const ReadyCall& ready, ir::Range chunk, bool first_iteration, bool in_loop) {
    const plan::KernelCall& call = *ready.call;
    auto resolve = [&](const std::vector<plan::View>& views, std::vector<tf_view>& out) {
      out.clear();
      for (const plan::View& view : views) {
        const plan::View resolved = in_loop ? plan::resolve_view(view, chunk) : view;
        out.push_back(make_tf_view(resolved, buffer_base(view.buffer),
                                   plan_.buffers[static_cast<size_t>(view.buffer)].dtype));
      }
    };
    resolve(call.inputs, inputs_);
    resolve(call.outputs, outputs_);
    KernelViews views;
    views.inputs = inputs_;
    views.outputs = outputs_;
    if (call.workspace >= 0) {
      views.workspace = buffer_base(call.workspace);
      views.workspace_bytes = plan_.buffers[static_cast<size_t>(call.workspace)].bytes;
    }
    views.chunk = in_loop ? chunk : ir::Range{};
    views.first_iteration = first_iteration;
    ready.kernel->run(views);
  }

 private:
  const ir::Graph& graph_;
  const plan::Plan& plan_;
  std::vector<uint8_t> arena_;
  std::vector<tf_view> inputs_, outputs_;  // reused across calls
};

Status check_inputs(const ir::Graph& graph, const std::vector<TensorData>& inputs) {
  if (inputs.size() != graph.inputs.size()) {
    return fail(graph.source_path + ": expected " + std::to_string(graph.inputs.size()) + " inputs, got " +
                std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Tensor& tensor = graph.tensor(graph.inputs[i]);
    if (inputs[i].dtype != tensor.dtype || inputs[i].shape != tensor.shape) {
      return fail(graph.source_path + ": input '" + tensor.name + "' expects " +
                  std::string(ir::dtype_name(tensor.dtype)) + " " + ir::format_shape(tensor.shape) + ", got " +
                  std::string(ir::dtype_name(inputs[i].dtype)) + " " + ir::format_shape(inputs[i].shape));
    }
  }
  return {};
}

}  // namespace

Result<std::vector<TensorData>> execute_plan(const ir::Graph& graph, const plan::Plan& plan,
                                             const std::vector<TensorData>& inputs) {
  TINYFIT_RETURN_IF_ERROR(check_inputs(graph, inputs));
  Executor executor(graph, plan);

  // Prepare everything first: a missing kernel fails before any work.
  std::vector<std::vector<ReadyCall>> ready(plan.steps.size());
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const plan::Step& step = plan.steps[s];
    if (!step.is_loop()) {
      TINYFIT_ASSIGN_OR_RETURN(ReadyCall call, executor.prepare(step.call()));
      ready[s].push_back(std::move(call));
      continue;
    }
    for (const plan::KernelCall& call : step.loop().body) {
      TINYFIT_ASSIGN_OR_RETURN(ReadyCall prepared, executor.prepare(call));
      ready[s].push_back(std::move(prepared));
    }
  }

  for (size_t i = 0; i < inputs.size(); ++i) {
    const plan::BufferId b = plan.inputs[i];
    TINYFIT_CHECK(static_cast<int64_t>(inputs[i].bytes.size()) <= plan.buffers[static_cast<size_t>(b)].bytes)
        << "input " << i << " does not fit its buffer";
    std::memcpy(executor.buffer_base(b), inputs[i].bytes.data(), inputs[i].bytes.size());
  }

  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const plan::Step& step = plan.steps[s];
    if (!step.is_loop()) {
      executor.run(ready[s][0], {}, true, false);
      continue;
    }
    const plan::Loop& loop = step.loop();
    const int64_t iterations = plan::count_iterations(loop);
    for (int64_t i = 0; i < iterations; ++i) {
      const ir::Range chunk = plan::chunk_of_iteration(loop, i);
      for (const ReadyCall& call : ready[s]) executor.run(call, chunk, i == 0, true);
    }
  }

  std::vector<TensorData> outputs;
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    const ir::Tensor& tensor = graph.tensor(graph.outputs[o]);
    TensorData data = TensorData::zeros(tensor.dtype, tensor.shape);
    const plan::BufferId b = plan.outputs[o];
    TINYFIT_CHECK(static_cast<int64_t>(data.bytes.size()) <= plan.buffers[static_cast<size_t>(b)].bytes)
        << "output '" << tensor.name << "' is larger than its buffer";
    std::memcpy(data.bytes.data(), executor.buffer_base(b), data.bytes.size());
    outputs.push_back(std::move(data));
  }
  return outputs;
}

}  // namespace tinyfit::exec
