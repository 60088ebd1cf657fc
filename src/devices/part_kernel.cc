#include "devices/part_kernel.h"

#include "devices/split_support.h"

namespace tinyfit::devices {
namespace {

// A kernel with the one-call plan it was prepared on.
struct PreparedOnPlan {
  std::unique_ptr<plan::Plan> plan;
  std::unique_ptr<exec::PreparedKernel> kernel;
};

}  // namespace

Result<PartKernel> prepare_part_kernel(const ir::Graph& graph, const Stage& stage, const PartCompute& compute) {
  const ir::Node& node = graph.nodes[static_cast<size_t>(compute.node)];
  PartKernel part;
  if (ir::op_decl(node.op).is_alias) return part;
  auto prepared = std::make_shared<PreparedOnPlan>();
  prepared->plan = std::make_unique<plan::Plan>();
  plan::Plan& p = *prepared->plan;
  auto add_view = [&](ir::TensorId t) {
    const ir::Tensor& tensor = graph.tensor(t);
    p.buffers.push_back({tensor.name, plan::BufferRole::kActivation, tensor.dtype, tensor.size_bytes(), 4, 0});
    return plan::make_dense_view(static_cast<plan::BufferId>(p.buffers.size()) - 1, tensor.shape);
  };
  plan::KernelCall call;
  call.node = compute.node;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (compute.input_buffers[i] >= 0) call.inputs.push_back(add_view(node.inputs[i]));
  }
  for (ir::TensorId t : node.outputs) call.outputs.push_back(add_view(t));
  const ir::Shape& out = graph.output_tensor(node, 0).shape;
  if (stage.split != Split::kWhole && reads_view_origins(node)) {
    call.outputs[0] = plan::follow_chunk(call.outputs[0], 0, 1, out[1], false);
    p.steps.push_back({plan::Loop{"device-part", plan::LoopAxis::kRows, out[1], out[1], {{call}}}});
  } else if (stage.split == Split::kChannels && node.op == ir::OpType::kFullyConnected) {
    call.mode = plan::CallMode::kChunk;
    call.outputs[0] = plan::follow_chunk(call.outputs[0], 0, 1, out[1], false);
    p.steps.push_back({plan::Loop{"device-part", plan::LoopAxis::kChannels, out[1], out[1], {{call}}}});
    part.chunk_of_channels = true;
  } else {
    p.steps.push_back({call});
  }
  const plan::KernelCall& placed = p.steps[0].is_loop() ? p.steps[0].loop().body[0].call() : p.steps[0].call();
  TINYFIT_ASSIGN_OR_RETURN(prepared->kernel, exec::prepare_kernel(exec::KernelCallContext{graph, p, placed}));
  part.kernel = std::shared_ptr<const exec::PreparedKernel>(prepared, prepared->kernel.get());
  part.call = &placed;
  return part;
}

plan::ViewInstance make_part_view(const Box& held, const Box& box) {
  plan::ViewInstance view;
  const ir::Shape extents = held.extents();
  view.strides = ir::compute_strides(extents);
  for (size_t a = 0; a < box.axes.size(); ++a) {
    view.offset_elements += (box.axes[a].begin - held.axes[a].begin) * view.strides[a];
    view.shape.push_back(box.axes[a].size());
    view.origin.push_back(box.axes[a].begin);
  }
  return view;
}

}  // namespace tinyfit::devices
