#include "driver/device_programs.h"

#include <memory>
#include <string>

#include "devices/part_kernel.h"

namespace tinyfit::driver {
namespace {

// `box` of a tensor inside device buffer `buffer` (dense over its own box),
// as a view fixed at compile time: devices/part_kernel.h make_part_view at
// the buffer's arena offset.
codegen::StaticView make_box_view(const devices::DeviceBuffer& buffer, const devices::Box& box) {
  const plan::ViewInstance view = devices::make_part_view(buffer.box, box);
  codegen::StaticView out;
  out.dtype = buffer.dtype;
  out.offset_bytes = buffer.offset + view.offset_elements * ir::dtype_size_bytes(buffer.dtype);
  out.shape = view.shape;
  out.strides = view.strides;
  out.origin = view.origin;
  return out;
}

std::string describe_box(const ir::Graph& graph, ir::TensorId tensor, const devices::Box& box) {
  return "'" + graph.tensor(tensor).name + "' " + devices::format_box(box);
}

}  // namespace

std::vector<codegen::DeviceProgram> DevicePrograms::programs(const ir::Graph& graph) const {
  std::vector<codegen::DeviceProgram> out;
  for (size_t d = 0; d < arenas.size(); ++d) out.push_back({&graph, &arenas[d], steps[d], {}});
  return out;
}

Result<DevicePrograms> make_device_programs(const ir::Graph& graph, const devices::DevicePlan& plan) {
  const int count = plan.count_devices();
  DevicePrograms out;
  out.arenas.resize(static_cast<size_t>(count));
  out.steps.resize(static_cast<size_t>(count));
  for (int d = 0; d < count; ++d) {
    const devices::DeviceArena& device = plan.devices[static_cast<size_t>(d)];
    plan::Plan& arena = out.arenas[static_cast<size_t>(d)];
    for (const devices::DeviceBuffer& b : device.buffers) {
      TINYFIT_CHECK(b.offset >= 0) << "device " << d << " buffer '" << b.name << "' is not placed";
      arena.buffers.push_back({b.name, plan::BufferRole::kActivation, b.dtype, b.bytes, 4, b.offset});
    }
    arena.arena_bytes = device.arena_bytes;
    for (const devices::DeviceTensorHome& home : plan.inputs) arena.inputs.push_back(home.device == d ? home.buffer : -1);
    for (const devices::DeviceTensorHome& home : plan.outputs) {
      arena.outputs.push_back(home.device == d ? home.buffer : -1);
    }
    arena.techniques = {"devices"};
  }
  const auto buffer = [&](devices::DeviceId d, int b) -> const devices::DeviceBuffer& {
    return plan.devices.at(static_cast<size_t>(d)).buffers.at(static_cast<size_t>(b));
  };
  for (const devices::Stage& stage : plan.stages) {
    for (const devices::Transfer& t : stage.transfers) {
      const std::string label = describe_box(graph, t.tensor, t.box) + " (" +
                                std::string(devices::exchange_kind_name(t.kind)) + ")";
      const codegen::StaticView from = make_box_view(buffer(t.from, t.from_buffer), t.box);
      const codegen::StaticView to = make_box_view(buffer(t.to, t.to_buffer), t.box);
      if (t.from == t.to) {
        out.steps[static_cast<size_t>(t.from)].push_back(codegen::LocalCopy{from, to, label});
        continue;
      }
      out.steps[static_cast<size_t>(t.from)].push_back(
          codegen::LinkTransfer{codegen::LinkDirection::kSend, t.to, from, label});
      out.steps[static_cast<size_t>(t.to)].push_back(
          codegen::LinkTransfer{codegen::LinkDirection::kReceive, t.from, to, label});
    }
    for (const devices::PartCompute& compute : stage.computes) {
      const devices::DeviceId d = compute.device;
      TINYFIT_ASSIGN_OR_RETURN(devices::PartKernel kernel, devices::prepare_part_kernel(graph, stage, compute));
      const ir::Node& node = graph.nodes.at(static_cast<size_t>(compute.node));
      std::vector<codegen::StaticView> inputs, outputs;
      for (size_t i = 0; i < compute.input_buffers.size(); ++i) {
        if (compute.input_buffers[i] >= 0) {
          inputs.push_back(make_box_view(buffer(d, compute.input_buffers[i]), compute.input_boxes[i]));
        }
      }
      for (size_t o = 0; o < compute.output_buffers.size(); ++o) {
        outputs.push_back(make_box_view(buffer(d, compute.output_buffers[o]), compute.output_boxes[o]));
      }
      const std::string part = std::string(devices::split_name(stage.split)) + " part " +
                               devices::format_box(compute.output_boxes.at(0));
      if (!kernel.kernel) {  // an alias: the input's bytes into the output's buffer
        const devices::DeviceBuffer& in = buffer(d, compute.input_buffers.at(0));
        const devices::DeviceBuffer& held = buffer(d, compute.output_buffers.at(0));
        out.steps[static_cast<size_t>(d)].push_back(codegen::LocalCopy{
            codegen::StaticView{in.offset, ir::DType::kU8, {held.bytes}, {1}, {0}},
            codegen::StaticView{held.offset, ir::DType::kU8, {held.bytes}, {1}, {0}}, "'" + node.name + "' (alias)"});
        continue;
      }
      codegen::PartCall call;
      call.node = compute.node;
      call.kernel = kernel.kernel;
      call.inputs = std::move(inputs);
      call.outputs = std::move(outputs);
      if (kernel.chunk_of_channels) call.chunk = compute.output_boxes.at(0).axes.back();
      call.label = part;
      out.steps[static_cast<size_t>(d)].push_back(std::move(call));
    }
  }
  return out;
}

}  // namespace tinyfit::driver
