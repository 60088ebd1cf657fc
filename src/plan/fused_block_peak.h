// The peak of a plan as runs of its plain steps are fused into one call each
// (plan/lower_overlap.h's inverted bottlenecks), without building the fused
// plans: the overlap lowering tries every block, and on NAS nets (about 100
// blocks in 3,300 steps, the lowering redone once per block to leave blocks
// unfused) a copy of the plan and its whole memory accounting per try took
// most of a compile's time after its searches.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/plan.h"
#include "plan/plan_memory.h"

namespace tinyfit::plan {

class FusedBlockPeak {
 public:
  // `unused[b]`: buffer b is used by no call and is no model input or output
  // (the fused plan drops such buffers with the block's own).
  // Requires: plan as given to the fusions, unused.size() == plan.buffers.size().
  FusedBlockPeak(const Plan& plan, std::vector<bool> unused);

  // The peak of the plan with the blocks fused so far.
  int64_t peak_bytes() const { return peak_bytes_; }

  // The peak of the plan with the blocks fused so far and the plain steps
  // [first_step, first_step + length) (steps of the plan as given) replaced by
  // one call that uses their first step's inputs, their last step's outputs
  // and a workspace of `workspace_bytes`, every other buffer their calls use
  // dropped, as is every unused buffer.
  // Requires: the steps are plain calls, after every block fused so far; the
  // buffers they use other than those inputs and outputs are used by no
  // other step.
  // Guarantees: equal to compute_plan_memory(fused plan).peak_bytes.
  // O(buffers + positions).
  int64_t compute_peak_with(size_t first_step, size_t length, int64_t workspace_bytes) const;

  // Records that the block of the last compute_peak_with call is fused.
  void fuse(size_t first_step, size_t length, int64_t workspace_bytes);

 private:
  // The live bytes at the block's one position once fused.
  int64_t count_fused_live_bytes(size_t first_step, size_t length, int64_t workspace_bytes) const;
  // Whether buffer b's memory record belongs to a buffer dropped when the block is fused.
  bool is_dropped(size_t b, const std::vector<bool>& in_block) const;

  const Plan& plan_;
  PlanMemory memory_;            // of the plan as given: lifetimes and live bytes in its positions
  std::vector<int> step_position_;  // per step of the plan as given: its first position
  std::vector<bool> unused_;
  bool unused_dropped_ = false;  // after the first fusion
  int64_t unused_bytes_ = 0;     // counted at position 0 until then
  std::vector<bool> gone_;       // per position: folded into a fused block's first position
  int64_t peak_bytes_ = 0;
};

}  // namespace tinyfit::plan
