// FusedBlockPeak against the oracle: compute_plan_memory of the fused plan
// built step by step, on random chains of plain calls with buffers kept
// across the blocks, unused buffers and declared overlaps.
#include "plan/fused_block_peak.h"

#include <gtest/gtest.h>

#include <vector>

#include "plan/plan_memory.h"
#include "plan/remove_buffers.h"
#include "support/random_dag.h"

namespace tinyfit::plan {
namespace {

View view_of(BufferId buffer) {
  View view;
  view.buffer = buffer;
  return view;
}

KernelCall make_call(std::vector<BufferId> inputs, BufferId output) {
  KernelCall call;
  call.node = 0;
  for (BufferId b : inputs) call.inputs.push_back(view_of(b));
  call.outputs.push_back(view_of(output));
  return call;
}

BufferId add_buffer(Plan& plan, int64_t bytes) {
  PlanBuffer buffer;
  buffer.bytes = bytes;
  plan.buffers.push_back(buffer);
  return static_cast<BufferId>(plan.buffers.size() - 1);
}

struct Block {
  size_t first_step;
  size_t length;
  int64_t workspace_bytes;
};

// A chain of calls, each reading the previous output and, now and then, a
// buffer written a few steps earlier (live across what lies between); the
// blocks are runs of 3 or 4 calls that read nothing but the chain. Some
// calls declare their output over their consumed input; buffer 1 is unused.
struct Instance {
  Plan plan;
  std::vector<Block> blocks;
};

Instance make_instance(uint64_t seed) {
  schedule::testing::TestRandom r(seed);
  Instance instance;
  Plan& plan = instance.plan;
  BufferId previous = add_buffer(plan, 4 * r.uniform(1, 40));
  plan.inputs.push_back(previous);
  add_buffer(plan, r.chance(0.5) ? 4 * r.uniform(1, 40) : 0);  // no call uses it
  std::vector<BufferId> kept;  // read once, later
  const int steps = r.uniform(4, 30);
  while (static_cast<int>(plan.steps.size()) < steps) {
    if (r.chance(0.3) && static_cast<int>(plan.steps.size()) + 4 <= steps) {
      const size_t length = r.chance(0.5) ? 3 : 4;
      instance.blocks.push_back({plan.steps.size(), length, 4 * r.uniform(0, 30)});
      for (size_t i = 0; i < length; ++i) {
        const BufferId output = add_buffer(plan, 4 * r.uniform(1, 40));
        plan.steps.push_back(Step{make_call({previous}, output)});
        previous = output;
      }
      continue;
    }
    std::vector<BufferId> inputs{previous};
    if (!kept.empty() && r.chance(0.5)) {
      inputs.push_back(kept.back());
      kept.pop_back();
    }
    const BufferId output = add_buffer(plan, 4 * r.uniform(1, 40));
    KernelCall call = make_call(inputs, output);
    if (inputs.size() == 1 && r.chance(0.4)) call.overlap = DeclaredOverlap{0, Traversal::kAscending, 4 * r.uniform(-10, 10)};
    plan.steps.push_back(Step{std::move(call)});
    if (r.chance(0.3)) kept.push_back(output);
    previous = output;
  }
  plan.outputs.push_back(previous);
  for (BufferId b : kept) {  // read by a last call, so that they are used
    plan.steps.push_back(Step{make_call({b, previous}, add_buffer(plan, 4))});
  }
  plan.outputs.back() = std::get<KernelCall>(plan.steps.back().what).outputs[0].buffer;
  return instance;
}

// The plan with the blocks fused, as the overlap lowering builds it.
Plan fuse_blocks(Plan plan, const std::vector<Block>& blocks) {
  for (size_t f = blocks.size(); f-- > 0;) {
    const Block& block = blocks[f];
    const auto first = plan.steps.begin() + static_cast<std::ptrdiff_t>(block.first_step);
    KernelCall fused = first->call();
    fused.outputs = (first + static_cast<std::ptrdiff_t>(block.length) - 1)->call().outputs;
    fused.workspace = add_buffer(plan, block.workspace_bytes);
    plan.buffers.back().role = BufferRole::kWorkspace;
    plan.steps.erase(first, first + static_cast<std::ptrdiff_t>(block.length));
    plan.steps.insert(plan.steps.begin() + static_cast<std::ptrdiff_t>(block.first_step), Step{std::move(fused)});
  }
  std::vector<bool> used(plan.buffers.size(), false);
  for (const Step& step : plan.steps) {
    const KernelCall& call = step.call();
    for (const auto* views : {&call.inputs, &call.outputs}) {
      for (const View& view : *views) used[static_cast<size_t>(view.buffer)] = true;
    }
    if (call.workspace >= 0) used[static_cast<size_t>(call.workspace)] = true;
  }
  for (BufferId b : plan.inputs) used[static_cast<size_t>(b)] = true;
  for (BufferId b : plan.outputs) used[static_cast<size_t>(b)] = true;
  std::vector<bool> removed(used.size());
  for (size_t b = 0; b < used.size(); ++b) removed[b] = !used[b];
  remove_buffers(plan, removed);
  return plan;
}

TEST(FusedBlockPeak, EqualsTheMemoryOfTheFusedPlanAfterEveryFusion) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const Instance instance = make_instance(seed);
    std::vector<bool> unused(instance.plan.buffers.size(), false);
    unused[1] = true;
    FusedBlockPeak peak(instance.plan, unused);
    EXPECT_EQ(peak.peak_bytes(), compute_plan_memory(instance.plan).peak_bytes) << "seed " << seed;
    std::vector<Block> fused;
    for (const Block& block : instance.blocks) {
      fused.push_back(block);
      const int64_t expected = compute_plan_memory(fuse_blocks(instance.plan, fused)).peak_bytes;
      ASSERT_EQ(peak.compute_peak_with(block.first_step, block.length, block.workspace_bytes), expected)
          << "seed " << seed << ", block at step " << block.first_step;
      peak.fuse(block.first_step, block.length, block.workspace_bytes);
      ASSERT_EQ(peak.peak_bytes(), expected) << "seed " << seed;
      ++compared;
    }
  }
  EXPECT_GT(compared, 100);  // the instances hold blocks
}

}  // namespace
}  // namespace tinyfit::plan
