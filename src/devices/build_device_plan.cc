#include "devices/build_device_plan.h"

#include <algorithm>
#include <climits>
#include <map>
#include <string>

#include "devices/part_boxes.h"
#include "devices/split_support.h"

namespace tinyfit::devices {
namespace {

struct Part {
  DeviceId device = 0;
  Box box;
};

// What one device holds of one tensor.
struct Holding {
  Box part;               // what it computed (or the graph input), empty if none
  Box need;               // union of what its computes read (and the final gather)
  int first_need_stage = INT_MAX;
  int part_buffer = -1;   // holds `part`
  int read_buffer = -1;   // holds `need`: part_buffer when one buffer holds both
};

class Builder {
 public:
  Builder(const ir::Graph& graph, const std::vector<OperatorChoice>& choices, int device_count)
      : graph_(graph), choices_(choices), device_count_(device_count) {
    plan_.devices.resize(static_cast<size_t>(device_count));
    plan_.choices = choices;
  }

  Result<DevicePlan> build() {
    TINYFIT_RETURN_IF_ERROR(check_choices());
    collect_parts();
    collect_needs();
    create_buffers();
    create_stages();
    finish_lifetimes();
    count_flash();
    return std::move(plan_);
  }

 private:
  Status check_choices() {
    std::vector<bool> seen(graph_.nodes.size(), false);
    for (const OperatorChoice& c : choices_) {
      if (c.node < 0 || static_cast<size_t>(c.node) >= graph_.nodes.size() || seen[static_cast<size_t>(c.node)]) {
        return fail("device plan: node " + std::to_string(c.node) + " chosen twice or unknown", ExitCode::kInternal);
      }
      seen[static_cast<size_t>(c.node)] = true;
      const ir::Node& node = graph_.nodes[static_cast<size_t>(c.node)];
      const size_t wanted = c.split == Split::kWhole ? 1 : c.devices.size();
      if (c.devices.empty() || c.devices.size() != wanted ||
          std::any_of(c.devices.begin(), c.devices.end(), [&](DeviceId d) { return d < 0 || d >= device_count_; }) ||
          !serves_split(graph_, node, c.split, static_cast<int>(c.devices.size()))) {
        return fail("device plan: node '" + node.name + "' cannot run " + std::string(split_name(c.split)) + " on " +
                        std::to_string(c.devices.size()) + " devices",
                    ExitCode::kInternal);
      }
    }
    if (std::find(seen.begin(), seen.end(), false) != seen.end()) {
      return fail("device plan: a node has no choice", ExitCode::kInternal);
    }
    return {};
  }

  Holding& holding(ir::TensorId t, DeviceId d) { return holdings_[{t, d}]; }

  void collect_parts() {
    for (ir::TensorId t : graph_.inputs) add_part(t, 0, make_full_box(graph_.tensor(t).shape));
    for (const OperatorChoice& c : choices_) {
      const ir::Node& node = graph_.nodes[static_cast<size_t>(c.node)];
      const int parts = static_cast<int>(c.devices.size());
      for (int p = 0; p < parts; ++p) {
        for (ir::TensorId out : node.outputs) {
          const Box box = compute_part_box(graph_.tensor(out).shape, c.split, p, parts);
          if (!box.is_empty()) add_part(out, c.devices[static_cast<size_t>(p)], box);
        }
      }
    }
  }

  void add_part(ir::TensorId t, DeviceId d, const Box& box) {
    parts_[t].push_back({d, box});
    holding(t, d).part = box;
  }

  // The part of output 0 each participating device computes, with what it reads.
  struct DevicePart {
    DeviceId device = 0;
    std::vector<Box> outputs;
    std::vector<Box> inputs;
  };
  std::vector<DevicePart> device_parts(const OperatorChoice& c) const {
    const ir::Node& node = graph_.nodes[static_cast<size_t>(c.node)];
    std::vector<DevicePart> result;
    const int parts = static_cast<int>(c.devices.size());
    for (int p = 0; p < parts; ++p) {
      DevicePart part;
      part.device = c.devices[static_cast<size_t>(p)];
      for (ir::TensorId out : node.outputs) part.outputs.push_back(compute_part_box(graph_.tensor(out).shape, c.split, p, parts));
      if (part.outputs[0].is_empty()) continue;
      part.inputs = compute_input_boxes(graph_, node, part.outputs[0]);
      if (c.split == Split::kWhole) {
        // Whole kernels take their whole inputs (a Slice applies its begin to
        // its input view), even where the windows read less.
        for (size_t i = 0; i < part.inputs.size(); ++i) {
          if (!part.inputs[i].axes.empty()) part.inputs[i] = make_full_box(graph_.input_tensor(node, i).shape);
        }
      }
      result.push_back(std::move(part));
    }
    return result;
  }

  void collect_needs() {
    for (size_t s = 0; s < choices_.size(); ++s) {
      const ir::Node& node = graph_.nodes[static_cast<size_t>(choices_[s].node)];
      for (const DevicePart& part : device_parts(choices_[s])) {
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          if (part.inputs[i].axes.empty()) continue;
          add_need(node.inputs[i], part.device, part.inputs[i], static_cast<int>(s));
        }
      }
    }
    final_stage_ = static_cast<int>(choices_.size());
    for (ir::TensorId t : graph_.outputs) add_need(t, 0, make_full_box(graph_.tensor(t).shape), final_stage_);
  }

  void add_need(ir::TensorId t, DeviceId d, const Box& box, int stage) {
    Holding& h = holding(t, d);
    h.need = bound_boxes(h.need, box);
    h.first_need_stage = std::min(h.first_need_stage, stage);
  }

  int add_buffer(ir::TensorId t, DeviceId d, const Box& box, const std::string& what) {
    const ir::Tensor& tensor = graph_.tensor(t);
    DeviceBuffer buffer;
    buffer.name = tensor.name + "@d" + std::to_string(d) + (what.empty() ? "" : ":" + what);
    buffer.tensor = t;
    buffer.dtype = tensor.dtype;
    buffer.box = box;
    buffer.bytes = box.count_elements() * ir::dtype_size_bytes(tensor.dtype);
    buffer.first_step = INT_MAX;
    buffer.last_step = -1;
    auto& buffers = plan_.devices[static_cast<size_t>(d)].buffers;
    buffers.push_back(std::move(buffer));
    return static_cast<int>(buffers.size()) - 1;
  }

  void create_buffers() {
    for (auto& [key, h] : holdings_) {
      const auto [t, d] = key;
      const bool has_part = !h.part.is_empty();
      const bool has_need = !h.need.is_empty();
      if (has_part) {
        Box box = h.part;
        const Box merged = bound_boxes(h.part, h.need);
        if (has_need && !h.part.contains(h.need) &&
            merged.count_elements() <= h.part.count_elements() + h.need.count_elements()) {
          box = merged;
        }
        h.part_buffer = add_buffer(t, d, box, "");
        if (!has_need || box.contains(h.need)) h.read_buffer = h.part_buffer;
      }
      if (has_need && h.read_buffer < 0) h.read_buffer = add_buffer(t, d, h.need, has_part ? "read" : "");
    }
  }

  DeviceBuffer& buffer(DeviceId d, int b) {
    return plan_.devices[static_cast<size_t>(d)].buffers[static_cast<size_t>(b)];
  }
  void touch(DeviceId d, int b, int step) {
    DeviceBuffer& buf = buffer(d, b);
    buf.first_step = std::min(buf.first_step, step);
    buf.last_step = std::max(buf.last_step, step);
  }

  // The split a tensor's parts were made by (graph inputs: whole).
  Split producer_split(ir::TensorId t) const {
    for (const OperatorChoice& c : choices_) {
      const ir::Node& node = graph_.nodes[static_cast<size_t>(c.node)];
      if (std::find(node.outputs.begin(), node.outputs.end(), t) != node.outputs.end()) return c.split;
    }
    return Split::kWhole;
  }

  ExchangeKind classify(Split from, Split to) const {
    if (from == Split::kWhole && to == Split::kWhole) return ExchangeKind::kRedistribute;
    if (from == Split::kWhole) return ExchangeKind::kScatter;
    if (to == Split::kWhole) return ExchangeKind::kGather;
    if (from == Split::kRows && to == Split::kRows) return ExchangeKind::kHalo;
    return ExchangeKind::kRedistribute;
  }

  // The transfers that bring every device the boxes it reads of the tensors
  // whose first consumer on it runs at `stage`.
  void add_transfers(Stage& stage, int s, Split consumer_split) {
    for (auto& [key, h] : holdings_) {
      const auto [t, e] = key;
      if (h.first_need_stage != s) continue;
      if (h.read_buffer != h.part_buffer && !h.part.is_empty()) {
        const Box box = intersect_boxes(h.part, h.need);
        if (!box.is_empty()) add_transfer(stage, s, ExchangeKind::kLocalCopy, t, e, h.part_buffer, e, h.read_buffer, box);
      }
      for (const Part& part : parts_[t]) {
        if (part.device == e) continue;
        const Box box = intersect_boxes(part.box, h.need);
        if (box.is_empty()) continue;
        const Holding& from = holdings_.at({t, part.device});
        add_transfer(stage, s, classify(producer_split(t), consumer_split), t, part.device, from.part_buffer, e,
                     h.read_buffer, box);
      }
    }
  }

  void add_transfer(Stage& stage, int s, ExchangeKind kind, ir::TensorId t, DeviceId from, int from_buffer,
                    DeviceId to, int to_buffer, const Box& box) {
    Transfer transfer;
    transfer.kind = kind;
    transfer.from = from;
    transfer.to = to;
    transfer.tensor = t;
    transfer.box = box;
    transfer.from_buffer = from_buffer;
    transfer.to_buffer = to_buffer;
    transfer.bytes = box.count_elements() * ir::dtype_size_bytes(graph_.tensor(t).dtype);
    touch(from, from_buffer, 2 * s);
    touch(to, to_buffer, 2 * s);
    stage.transfers.push_back(std::move(transfer));
  }

  void create_stages() {
    for (size_t s = 0; s < choices_.size(); ++s) {
      const OperatorChoice& c = choices_[s];
      const ir::Node& node = graph_.nodes[static_cast<size_t>(c.node)];
      Stage stage;
      stage.node = c.node;
      stage.split = c.split;
      add_transfers(stage, static_cast<int>(s), c.split);
      const int step = 2 * static_cast<int>(s) + 1;
      for (const DevicePart& part : device_parts(c)) {
        PartCompute compute;
        compute.node = c.node;
        compute.device = part.device;
        compute.output_boxes = part.outputs;
        compute.input_boxes = part.inputs;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          int b = -1;
          if (!part.inputs[i].axes.empty()) {
            b = holdings_.at({node.inputs[i], part.device}).read_buffer;
            touch(part.device, b, step);
          }
          compute.input_buffers.push_back(b);
        }
        for (ir::TensorId out : node.outputs) {
          const int b = holdings_.at({out, part.device}).part_buffer;
          touch(part.device, b, step);
          compute.output_buffers.push_back(b);
        }
        stage.computes.push_back(std::move(compute));
      }
      plan_.stages.push_back(std::move(stage));
    }
    Stage last;
    add_transfers(last, final_stage_, Split::kWhole);
    plan_.stages.push_back(std::move(last));
  }

  void finish_lifetimes() {
    for (ir::TensorId t : graph_.inputs) {
      const int b = holdings_.at({t, 0}).part_buffer;
      touch(0, b, 0);
      plan_.inputs.push_back({0, b});
    }
    const int last_step = plan_.count_steps() - 1;
    for (ir::TensorId t : graph_.outputs) {
      const int b = holdings_.at({t, 0}).read_buffer;
      touch(0, b, last_step);
      plan_.outputs.push_back({0, b});
    }
    // A part no device reads (an unused output of a whole operator) lives at its step.
    for (DeviceArena& device : plan_.devices) {
      for (DeviceBuffer& b : device.buffers) {
        TINYFIT_CHECK(b.last_step >= 0) << "device buffer '" << b.name << "' never used";
      }
    }
  }

  void count_flash() {
    for (const Stage& stage : plan_.stages) {
      for (const PartCompute& compute : stage.computes) {
        const ir::Node& node = graph_.nodes[static_cast<size_t>(compute.node)];
        int64_t share_num = 1, share_den = 1;
        if (stage.split == Split::kChannels) {
          const ir::Shape& shape = graph_.output_tensor(node, 0).shape;
          share_num = compute.output_boxes[0].axes.back().size();
          share_den = shape.back();
        }
        int64_t bytes = 0;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          if (!graph_.has_input(node, i) || !graph_.input_tensor(node, i).is_constant) continue;
          const int64_t whole = graph_.input_tensor(node, i).size_bytes();
          bytes += (whole * share_num + share_den - 1) / share_den;
        }
        plan_.devices[static_cast<size_t>(compute.device)].flash_bytes += bytes;
      }
    }
  }

  const ir::Graph& graph_;
  const std::vector<OperatorChoice>& choices_;
  int device_count_;
  int final_stage_ = 0;
  DevicePlan plan_;
  std::map<ir::TensorId, std::vector<Part>> parts_;
  std::map<std::pair<ir::TensorId, DeviceId>, Holding> holdings_;
};

}  // namespace

Result<DevicePlan> build_device_plan(const ir::Graph& graph, const std::vector<OperatorChoice>& choices,
                                     int device_count) {
  return Builder(graph, choices, device_count).build();
}

}  // namespace tinyfit::devices
