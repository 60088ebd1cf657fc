#include "plan/fused_block_peak.h"

#include <algorithm>
#include <utility>

#include "support/diag.h"

namespace tinyfit::plan {

// Fusing plain steps folds their positions into the first one, and every
// lifetime and anchored pair with them (a monotone map of positions): the
// live bytes elsewhere stay as they are, and at the fused position live the
// buffers, and share the anchored pairs, whose lifetimes met the block's
// positions, less the dropped ones, plus the workspace.
FusedBlockPeak::FusedBlockPeak(const Plan& plan, std::vector<bool> unused)
    : plan_(plan), memory_(compute_plan_memory(plan)), unused_(std::move(unused)) {
  TINYFIT_CHECK(unused_.size() == plan.buffers.size()) << "one unused flag per buffer";
  step_position_.assign(plan.steps.size(), -1);
  for (size_t p = memory_.positions.size(); p-- > 0;) {
    step_position_[static_cast<size_t>(memory_.positions[p].step)] = static_cast<int>(p);
  }
  for (size_t b = 0; b < unused_.size(); ++b) unused_bytes_ += unused_[b] ? plan.buffers[b].bytes : 0;
  gone_.assign(memory_.live_bytes.size(), false);
  peak_bytes_ = memory_.peak_bytes;
}

bool FusedBlockPeak::is_dropped(size_t b, const std::vector<bool>& in_block) const {
  return in_block[b] || unused_[b];
}

int64_t FusedBlockPeak::count_fused_live_bytes(size_t first_step, size_t length, int64_t workspace_bytes) const {
  const KernelCall& head = plan_.steps.at(first_step).call();
  const KernelCall& tail = plan_.steps.at(first_step + length - 1).call();
  TINYFIT_CHECK(head.inputs.size() == 1 && tail.outputs.size() == 1) << "a fused block has one input and one output";
  std::vector<bool> in_block(plan_.buffers.size(), false);
  for (size_t s = first_step; s < first_step + length; ++s) {
    const KernelCall& call = plan_.steps[s].call();
    for (const auto* views : {&call.inputs, &call.outputs}) {
      for (const View& view : *views) in_block[static_cast<size_t>(view.buffer)] = true;
    }
    if (call.workspace >= 0) in_block[static_cast<size_t>(call.workspace)] = true;
  }
  in_block[static_cast<size_t>(head.inputs[0].buffer)] = false;
  in_block[static_cast<size_t>(tail.outputs[0].buffer)] = false;

  const int first = step_position_[first_step];
  const int last = first + static_cast<int>(length) - 1;
  const int last_position = static_cast<int>(memory_.live_bytes.size()) - 1;
  int64_t live = workspace_bytes;
  for (size_t b = 0; b < memory_.buffers.size(); ++b) {
    const PlacementBuffer& record = memory_.buffers[b];
    if (is_dropped(b, in_block) || record.first_step > last || record.last_step < first) continue;
    live += record.bytes;
    if (record.anchor < 0) continue;
    const auto anchor = static_cast<size_t>(record.anchor);
    if (is_dropped(anchor, in_block)) continue;
    const PlacementBuffer& base = memory_.buffers[anchor];
    const int shared_first = std::max(record.first_step, base.first_step);
    const int shared_last = std::min({record.last_step, base.last_step, last_position});
    if (shared_first <= last && shared_last >= first) live -= count_anchored_shared_bytes(record, base);
  }
  return live;
}

int64_t FusedBlockPeak::compute_peak_with(size_t first_step, size_t length, int64_t workspace_bytes) const {
  TINYFIT_CHECK(length >= 1 && first_step + length <= plan_.steps.size()) << "a block of the plan's steps";
  for (size_t s = first_step; s < first_step + length; ++s) {
    TINYFIT_CHECK(!plan_.steps[s].is_loop()) << "only plain steps are fused";
  }
  const int first = step_position_[first_step];
  const int last = first + static_cast<int>(length) - 1;
  TINYFIT_CHECK(step_position_[first_step + length - 1] == last) << "a block's steps are one position each";
  int64_t peak = count_fused_live_bytes(first_step, length, workspace_bytes);
  for (size_t p = 0; p < memory_.live_bytes.size(); ++p) {
    const auto position = static_cast<int>(p);
    if (gone_[p] || (position >= first && position <= last)) continue;
    const int64_t unused_here = p == 0 && !unused_dropped_ ? unused_bytes_ : 0;
    peak = std::max(peak, memory_.live_bytes[p] - unused_here);
  }
  return peak;
}

void FusedBlockPeak::fuse(size_t first_step, size_t length, int64_t workspace_bytes) {
  const int64_t peak = compute_peak_with(first_step, length, workspace_bytes);
  const auto first = static_cast<size_t>(step_position_[first_step]);
  if (!unused_dropped_ && first != 0) memory_.live_bytes[0] -= unused_bytes_;
  unused_dropped_ = true;
  memory_.live_bytes[first] = count_fused_live_bytes(first_step, length, workspace_bytes);
  for (size_t p = first + 1; p < first + length; ++p) gone_[p] = true;
  peak_bytes_ = peak;
}

}  // namespace tinyfit::plan
