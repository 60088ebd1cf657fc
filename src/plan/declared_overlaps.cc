#include "plan/declared_overlaps.h"

#include <algorithm>

#include "plan/plan_walk.h"
#include "support/diag.h"

namespace tinyfit::plan {
namespace {

int64_t view_start_bytes(const Plan& plan, const View& view) {
  return view.offset_elements * ir::dtype_size_bytes(plan.buffers.at(static_cast<size_t>(view.buffer)).dtype);
}

}  // namespace

int64_t compute_anchor_offset_bytes(const Plan& plan, const KernelCall& call) {
  TINYFIT_CHECK(call.overlap && call.overlap->input >= 0 &&
                static_cast<size_t>(call.overlap->input) < call.inputs.size() && call.outputs.size() == 1)
      << "a declared overlap without its views";
  const View& input = call.inputs[static_cast<size_t>(call.overlap->input)];
  return view_start_bytes(plan, input) + call.overlap->offset_bytes - view_start_bytes(plan, call.outputs[0]);
}

void apply_declared_overlaps(const Plan& plan, std::vector<PlacementBuffer>& records,
                             std::vector<int64_t>& live_bytes) {
  const auto anchor_pair = [&](BufferId output_id, BufferId input, int64_t offset_bytes) {
    PlacementBuffer& output = records.at(static_cast<size_t>(output_id));
    TINYFIT_CHECK(output.anchor < 0) << "buffer " << output.id << " is the output of two declared overlaps";
    output.anchor = input;
    output.anchor_offset_bytes = offset_bytes;
    const PlacementBuffer& anchor = records.at(static_cast<size_t>(input));
    const int64_t shared = count_anchored_shared_bytes(output, anchor);
    const int last = std::min({output.last_step, anchor.last_step, static_cast<int>(live_bytes.size()) - 1});
    for (int p = std::max(output.first_step, anchor.first_step); p <= last; ++p) {
      live_bytes[static_cast<size_t>(p)] -= shared;
    }
  };
  const Status walked = walk_calls(plan.steps, [&](const KernelCall& call, LoopNest) -> Status {
    if (!call.overlap) return {};
    anchor_pair(call.outputs.at(0).buffer, call.inputs.at(static_cast<size_t>(call.overlap->input)).buffer,
                compute_anchor_offset_bytes(plan, call));
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  // Row loops' overlaps (plan.h LoopOverlap): buffer to buffer.
  for (const Step& step : plan.steps) {
    if (!step.is_loop()) continue;
    for (const LoopOverlap& overlap : step.loop().overlaps) anchor_pair(overlap.output, overlap.input, overlap.offset_bytes);
  }
}

}  // namespace tinyfit::plan
