#include "devices/execute_device_plan.h"

#include <cstring>
#include <memory>
#include <string>

#include "devices/part_kernel.h"
#include "exec/kernel_call.h"
#include "exec/plan_executor.h"

namespace tinyfit::devices {
namespace {

// Copies `box` between two buffers holding the boxes `from_box` and `to_box`,
// one contiguous run of the last axis at a time.
void copy_box(const uint8_t* from, const Box& from_box, uint8_t* to, const Box& to_box, const Box& box,
              int64_t element_bytes) {
  const plan::ViewInstance src = make_part_view(from_box, box);
  const plan::ViewInstance dst = make_part_view(to_box, box);
  const int rank = static_cast<int>(box.axes.size());
  if (box.is_empty()) return;
  const int64_t run_bytes = (rank == 0 ? 1 : src.shape.back()) * element_bytes;
  std::vector<int64_t> index(static_cast<size_t>(std::max(rank - 1, 0)), 0);
  while (true) {
    int64_t s = src.offset_elements, d = dst.offset_elements;
    for (int a = 0; a + 1 < rank; ++a) {
      s += index[static_cast<size_t>(a)] * src.strides[static_cast<size_t>(a)];
      d += index[static_cast<size_t>(a)] * dst.strides[static_cast<size_t>(a)];
    }
    std::memcpy(to + d * element_bytes, from + s * element_bytes, static_cast<size_t>(run_bytes));
    int a = rank - 2;
    for (; a >= 0; --a) {
      if (++index[static_cast<size_t>(a)] < src.shape[static_cast<size_t>(a)]) break;
      index[static_cast<size_t>(a)] = 0;
    }
    if (a < 0) return;
  }
}

class DeviceRunner {
 public:
  DeviceRunner(const ir::Graph& graph, const DevicePlan& plan) : graph_(graph), plan_(plan) {
    for (const DeviceArena& device : plan.devices) {
      arenas_.push_back(std::make_unique<uint8_t[]>(static_cast<size_t>(device.arena_bytes)));
      std::memset(arenas_.back().get(), exec::kArenaPoisonByte, static_cast<size_t>(device.arena_bytes));
    }
  }

  Status prepare_all() {
    for (const Stage& stage : plan_.stages) {
      for (const PartCompute& compute : stage.computes) {
        TINYFIT_ASSIGN_OR_RETURN(PartKernel part, prepare_part_kernel(graph_, stage, compute));
        parts_.push_back(std::move(part));
      }
    }
    return {};
  }

  uint8_t* base(DeviceId d, int b) {
    const DeviceArena& device = plan_.devices.at(static_cast<size_t>(d));
    const DeviceBuffer& buffer = device.buffers.at(static_cast<size_t>(b));
    TINYFIT_CHECK(buffer.offset >= 0 && buffer.offset + buffer.bytes <= device.arena_bytes)
        << "device buffer '" << buffer.name << "' is not placed inside device " << d << "'s arena";
    return arenas_[static_cast<size_t>(d)].get() + buffer.offset;
  }
  const DeviceBuffer& buffer(DeviceId d, int b) const {
    return plan_.devices.at(static_cast<size_t>(d)).buffers.at(static_cast<size_t>(b));
  }

  void run_all() {
    size_t next_part = 0;
    for (const Stage& stage : plan_.stages) {
      for (const Transfer& t : stage.transfers) {
        const DeviceBuffer& from = buffer(t.from, t.from_buffer);
        const DeviceBuffer& to = buffer(t.to, t.to_buffer);
        TINYFIT_CHECK(from.box.contains(t.box) && to.box.contains(t.box)) << "transfer of a box its buffers lack";
        copy_box(base(t.from, t.from_buffer), from.box, base(t.to, t.to_buffer), to.box, t.box,
                 ir::dtype_size_bytes(from.dtype));
      }
      for (const PartCompute& compute : stage.computes) run(compute, parts_.at(next_part++));
    }
  }

 private:
  void run(const PartCompute& compute, const PartKernel& part) {
    const DeviceId d = compute.device;
    if (!part.kernel) {  // an alias: the input's bytes, whole, into the output's buffer
      const int in = compute.input_buffers.at(0), out = compute.output_buffers.at(0);
      std::memcpy(base(d, out), base(d, in), static_cast<size_t>(buffer(d, out).bytes));
      return;
    }
    inputs_.clear();
    outputs_.clear();
    for (size_t i = 0; i < compute.input_buffers.size(); ++i) {
      const int b = compute.input_buffers[i];
      if (b < 0) continue;
      const DeviceBuffer& held = buffer(d, b);
      inputs_.push_back(exec::make_tf_view(make_part_view(held.box, compute.input_boxes[i]), base(d, b), held.dtype));
    }
    for (size_t o = 0; o < compute.output_buffers.size(); ++o) {
      const int b = compute.output_buffers[o];
      const DeviceBuffer& held = buffer(d, b);
      outputs_.push_back(exec::make_tf_view(make_part_view(held.box, compute.output_boxes[o]), base(d, b), held.dtype));
    }
    exec::KernelViews views;
    views.inputs = inputs_;
    views.outputs = outputs_;
    if (part.chunk_of_channels) views.chunk = compute.output_boxes[0].axes.back();
    part.kernel->run(views);
  }

  const ir::Graph& graph_;
  const DevicePlan& plan_;
  std::vector<std::unique_ptr<uint8_t[]>> arenas_;
  std::vector<PartKernel> parts_;
  std::vector<tf_view> inputs_, outputs_;
};

}  // namespace

Result<std::vector<exec::TensorData>> execute_device_plan(const ir::Graph& graph, const DevicePlan& plan,
                                                          const std::vector<exec::TensorData>& inputs) {
  if (inputs.size() != graph.inputs.size()) {
    return fail(graph.source_path + ": expected " + std::to_string(graph.inputs.size()) + " inputs, got " +
                std::to_string(inputs.size()));
  }
  DeviceRunner runner(graph, plan);
  TINYFIT_RETURN_IF_ERROR(runner.prepare_all());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Tensor& tensor = graph.tensor(graph.inputs[i]);
    if (inputs[i].dtype != tensor.dtype || inputs[i].shape != tensor.shape) {
      return fail(graph.source_path + ": input '" + tensor.name + "' expects " + ir::format_shape(tensor.shape));
    }
    const DeviceTensorHome home = plan.inputs[i];
    std::memcpy(runner.base(home.device, home.buffer), inputs[i].bytes.data(), inputs[i].bytes.size());
  }
  runner.run_all();
  std::vector<exec::TensorData> outputs;
  for (size_t o = 0; o < graph.outputs.size(); ++o) {
    const ir::Tensor& tensor = graph.tensor(graph.outputs[o]);
    exec::TensorData data = exec::TensorData::zeros(tensor.dtype, tensor.shape);
    const DeviceTensorHome home = plan.outputs[o];
    const DeviceBuffer& held = runner.buffer(home.device, home.buffer);
    TINYFIT_CHECK(held.box == make_full_box(tensor.shape)) << "output '" << tensor.name << "' not whole on device 0";
    std::memcpy(data.bytes.data(), runner.base(home.device, home.buffer), data.bytes.size());
    outputs.push_back(std::move(data));
  }
  return outputs;
}

}  // namespace tinyfit::devices
