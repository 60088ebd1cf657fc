#include "devices/device_latency.h"

#include <algorithm>

#include "cost/predict.h"
#include "exec/plan_work.h"

namespace tinyfit::devices {
namespace {

// The corners of a box, flattened: a cache key.
void append_box(const Box& box, std::vector<int64_t>& key) {
  key.push_back(static_cast<int64_t>(box.axes.size()));
  for (const ir::Range& r : box.axes) {
    key.push_back(r.begin);
    key.push_back(r.end);
  }
}

}  // namespace

Result<double> PartPredictor::predict_copy(const Box& box) const {
  if (box.is_empty()) return 0.0;
  cost::CallGeometry geometry;
  geometry.written = box.axes;
  geometry.read_elements = box.count_elements();
  geometry.work_share = 0.0;
  cost::PlanWork work;
  work.add_call("tf_x8_copy", cost::compute_call_features(geometry));
  return cost::predict_instructions(table_, work);
}

Result<double> PartPredictor::predict_part(ir::NodeId node_id, Split split, const std::vector<Box>& output_boxes,
                                           const std::vector<Box>& input_boxes) {
  std::vector<int64_t> key;
  for (const Box& box : output_boxes) append_box(box, key);
  for (const Box& box : input_boxes) append_box(box, key);
  const auto cache_key = std::make_tuple(node_id, split, key);
  if (const auto found = parts_.find(cache_key); found != parts_.end()) return found->second;

  Stage stage;
  stage.split = split;
  PartCompute compute;
  compute.node = node_id;
  compute.output_boxes = output_boxes;
  compute.input_boxes = input_boxes;
  for (const Box& box : input_boxes) compute.input_buffers.push_back(box.axes.empty() ? -1 : 0);
  auto kernel = kernels_.find({node_id, split});
  if (kernel == kernels_.end()) {
    TINYFIT_ASSIGN_OR_RETURN(PartKernel prepared, prepare_part_kernel(graph_, stage, compute));
    kernel = kernels_.emplace(std::make_pair(node_id, split), std::move(prepared)).first;
  }
  double instructions = 0;
  if (!kernel->second.kernel) {  // an alias: a copy of its output part
    TINYFIT_ASSIGN_OR_RETURN(instructions, predict_copy(output_boxes.at(0)));
  } else {
    std::vector<plan::ViewInstance> inputs, outputs;
    for (const Box& box : input_boxes) {
      if (!box.axes.empty()) inputs.push_back(make_part_view(box, box));
    }
    for (const Box& box : output_boxes) outputs.push_back(make_part_view(box, box));
    TINYFIT_ASSIGN_OR_RETURN(const cost::PlanWork work, exec::count_kernel_work(graph_, *kernel->second.call,
                                                                                 *kernel->second.kernel, inputs, outputs));
    TINYFIT_ASSIGN_OR_RETURN(instructions, cost::predict_instructions(table_, work));
    // predict_instructions adds the run function's coefficients times
    // work.run, which count_kernel_work leaves at zero.
  }
  parts_.emplace(cache_key, instructions);
  return instructions;
}

Result<PlanLatency> predict_plan_latency(const DevicePlan& plan, const LatencyModel& model,
                                         PartPredictor& predictor) {
  TINYFIT_CHECK(model.table != nullptr) << "predict_plan_latency without a cost table";
  const int n = plan.count_devices();
  PlanLatency latency;
  latency.device_instructions.assign(static_cast<size_t>(n), 0.0);
  for (const Stage& stage : plan.stages) {
    StageLatency s;
    s.instructions.assign(static_cast<size_t>(n), 0.0);
    for (const Transfer& t : stage.transfers) {
      if (t.from != t.to) {
        s.link_bytes += t.bytes;
        continue;
      }
      TINYFIT_ASSIGN_OR_RETURN(const double copy, predictor.predict_copy(t.box));
      s.instructions[static_cast<size_t>(t.to)] += copy;
    }
    for (const PartCompute& compute : stage.computes) {
      TINYFIT_ASSIGN_OR_RETURN(const double part, predictor.predict_part(compute.node, stage.split,
                                                                         compute.output_boxes, compute.input_boxes));
      s.instructions[static_cast<size_t>(compute.device)] += part;
    }
    if (model.link_bytes_per_second > 0) {
      s.link_seconds = static_cast<double>(s.link_bytes) / static_cast<double>(model.link_bytes_per_second);
    }
    const double slowest = *std::max_element(s.instructions.begin(), s.instructions.end());
    const double compute_seconds = slowest / model.instructions_per_second;
    s.seconds = s.link_seconds + compute_seconds;
    for (int d = 0; d < n; ++d) latency.device_instructions[static_cast<size_t>(d)] += s.instructions[static_cast<size_t>(d)];
    latency.compute_seconds += compute_seconds;
    latency.link_seconds += s.link_seconds;
    latency.seconds += s.seconds;
    latency.stages.push_back(std::move(s));
  }
  return latency;
}

}  // namespace tinyfit::devices
