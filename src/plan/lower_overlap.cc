#include "plan/lower_overlap.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <variant>
#include <vector>

#include "plan/fused_block_peak.h"
#include "plan/plan_memory.h"
#include "plan/plan_walk.h"
#include "plan/remove_buffers.h"
#include "plan/segment_call.h"
#include "plan/segment_closed_form.h"

namespace tinyfit::plan {
namespace {

// The plain steps (not loops) that use each buffer, and whether a loop does.
struct BufferUses {
  std::vector<std::vector<int>> steps;  // per buffer: indices of the steps using it, ascending
  std::vector<bool> in_loop;            // per buffer: some loop body uses it
};

BufferUses find_buffer_uses(const Plan& plan) {
  BufferUses uses;
  uses.steps.resize(plan.buffers.size());
  uses.in_loop.assign(plan.buffers.size(), false);
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const Step& step = plan.steps[s];
    if (!step.is_loop()) {
      step.call().for_each_buffer([&](BufferId b) {
        std::vector<int>& list = uses.steps[static_cast<size_t>(b)];
        if (list.empty() || list.back() != static_cast<int>(s)) list.push_back(static_cast<int>(s));
      });
      continue;
    }
    const Status walked = walk_calls(step.loop().body, [&](const KernelCall& call, LoopNest) -> Status {
      call.for_each_buffer([&](BufferId b) { uses.in_loop[static_cast<size_t>(b)] = true; });
      return {};
    });
    TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  }
  return uses;
}

bool is_model_buffer(const std::vector<BufferId>& list, BufferId b) {
  return std::find(list.begin(), list.end(), b) != list.end();
}

// A fused call and the ring workspace it needs; the call names the
// workspace by the id it gets when appended to the plan's buffers.
struct FusedBlock {
  KernelCall call;
  PlanBuffer workspace;
};

// The fused call for the chain of calls at steps [first, first + length), or
// nullopt when the fused kernel does not compute it: one input (the block
// input), every other buffer of the chain used by nothing else. Reads the
// plan only: most steps start no fusable chain, and a copy of the plan per
// step made NAS nets' overlap lowering quadratic in their steps.
std::optional<FusedBlock> try_fuse(const ir::Graph& graph, const Plan& plan, const BufferUses& uses, size_t first,
                                   size_t length, int64_t alignment) {
  if (first + length > plan.steps.size()) return std::nullopt;
  KernelCall fused;
  for (size_t s = first; s < first + length; ++s) {
    if (plan.steps[s].is_loop() || plan.steps[s].call().mode != CallMode::kWhole ||
        plan.steps[s].call().node < 0 || plan.steps[s].call().overlap || !plan.steps[s].call().fused.empty()) {
      return std::nullopt;
    }
    if (s == first) {
      fused.node = plan.steps[s].call().node;
    } else {
      fused.fused.push_back(plan.steps[s].call().node);
    }
  }
  const KernelCall& head = plan.steps[first].call();
  const KernelCall& tail = plan.steps[first + length - 1].call();
  Result<SegmentKernel> kernel = describe_segment_call(graph, fused, Traversal::kAscending);
  if (!kernel || head.inputs.size() != 1 || tail.outputs.size() != 1) return std::nullopt;
  const ir::DType dtype = plan.buffers[static_cast<size_t>(head.inputs[0].buffer)].dtype;
  if (dtype != ir::DType::kI8 && dtype != ir::DType::kU8) return std::nullopt;  // the fused kernels are int8
  const BufferId block_input = head.inputs[0].buffer;
  const BufferId block_output = tail.outputs[0].buffer;
  for (size_t s = first; s < first + length; ++s) {
    bool private_only = true;
    plan.steps[s].call().for_each_buffer([&](BufferId b) {
      if (b == block_input || b == block_output) return;
      const std::vector<int>& steps = uses.steps[static_cast<size_t>(b)];
      const bool inside = !steps.empty() && steps.front() >= static_cast<int>(first) &&
                          steps.back() < static_cast<int>(first + length);
      if (!inside || uses.in_loop[static_cast<size_t>(b)] || is_model_buffer(plan.inputs, b) ||
          is_model_buffer(plan.outputs, b)) {
        private_only = false;
      }
    });
    if (!private_only) return std::nullopt;
  }
  fused.inputs = head.inputs;
  fused.outputs = tail.outputs;
  PlanBuffer workspace;
  workspace.name = graph.nodes[static_cast<size_t>(fused.node)].name + ":ring";
  workspace.role = BufferRole::kWorkspace;
  workspace.dtype = dtype;
  workspace.bytes = compute_inverted_bottleneck_workspace_bytes(*kernel);
  workspace.alignment = alignment;
  fused.workspace = static_cast<BufferId>(plan.buffers.size());
  return FusedBlock{std::move(fused), std::move(workspace)};
}

// Per buffer: no call, input or output refers to it.
std::vector<bool> find_unused_buffers(const Plan& plan, const BufferUses& uses) {
  std::vector<bool> unused(plan.buffers.size(), false);
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    const auto id = static_cast<BufferId>(b);
    unused[b] = uses.steps[b].empty() && !uses.in_loop[b] && !is_model_buffer(plan.inputs, id) &&
                !is_model_buffer(plan.outputs, id);
  }
  return unused;
}

// Drops buffers no call, input or output refers to any more, renumbering
// the rest in order.
void drop_unused_buffers(Plan& plan) { remove_buffers(plan, find_unused_buffers(plan, find_buffer_uses(plan))); }

// Fuses every inverted bottleneck it can but those whose first node is in
// `left_unfused` (and, when `only` is not null, those whose first node is not
// in it), longest chain (with the residual Add) first, when that does not
// raise the plan's peak: the ring of expanded pixels is larger than the
// tensors it replaces on tiny images. Returns how many.
// The blocks are chosen on the plan as given (a fusion changes neither which
// later chains can fuse nor the memory at their steps, only the peak they are
// compared with: FusedBlockPeak), then fused in one pass.
int fuse_inverted_bottlenecks(const ir::Graph& graph, Plan& plan, int64_t alignment,
                              const std::vector<ir::NodeId>& left_unfused, const std::vector<ir::NodeId>* only) {
  const BufferUses uses = find_buffer_uses(plan);
  FusedBlockPeak peak(plan, find_unused_buffers(plan, uses));
  struct Fusion {
    size_t first_step;
    size_t length;
    FusedBlock block;
  };
  std::vector<Fusion> fusions;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    for (size_t length : {size_t{4}, size_t{3}}) {
      std::optional<FusedBlock> block = try_fuse(graph, plan, uses, s, length, alignment);
      if (!block || std::find(left_unfused.begin(), left_unfused.end(), block->call.node) != left_unfused.end() ||
          (only != nullptr && std::find(only->begin(), only->end(), block->call.node) == only->end())) {
        continue;
      }
      if (peak.compute_peak_with(s, length, block->workspace.bytes) > peak.peak_bytes()) continue;
      peak.fuse(s, length, block->workspace.bytes);
      fusions.push_back({s, length, std::move(*block)});
      s += length - 1;
      break;
    }
  }
  if (fusions.empty()) return 0;
  // Each fused call gets the next workspace id, in step order.
  std::vector<Step> steps;
  steps.reserve(plan.steps.size());
  size_t next = 0;
  for (Fusion& fusion : fusions) {
    std::move(plan.steps.begin() + static_cast<std::ptrdiff_t>(next),
              plan.steps.begin() + static_cast<std::ptrdiff_t>(fusion.first_step), std::back_inserter(steps));
    fusion.block.call.workspace = static_cast<BufferId>(plan.buffers.size());
    plan.buffers.push_back(std::move(fusion.block.workspace));
    steps.push_back(Step{std::move(fusion.block.call)});
    next = fusion.first_step + fusion.length;
  }
  std::move(plan.steps.begin() + static_cast<std::ptrdiff_t>(next), plan.steps.end(), std::back_inserter(steps));
  plan.steps = std::move(steps);
  drop_unused_buffers(plan);
  return static_cast<int>(fusions.size());
}

// The rigid chains declared overlaps tie buffers into: each buffer's start
// relative to its chain's first buffer, and each chain's extent so far.
class OverlapChains {
 public:
  explicit OverlapChains(const Plan& plan)
      : plan_(plan), chain_of_(plan.buffers.size(), -1), relative_(plan.buffers.size(), 0) {}

  // The chain's span in bytes if `output` joined `input`'s chain at `offset`
  // bytes from it.
  int64_t span_with(BufferId input, BufferId output, int64_t offset) const {
    const int64_t at = relative_[static_cast<size_t>(input)] + offset;
    const int64_t end = at + bytes(output);
    const int chain = chain_of_[static_cast<size_t>(input)];
    if (chain < 0) return std::max(bytes(input), end) - std::min<int64_t>(0, at);
    const Extent& e = extents_[static_cast<size_t>(chain)];
    return std::max(e.end, end) - std::min(e.begin, at);
  }

  void join(BufferId input, BufferId output, int64_t offset) {
    int chain = chain_of_[static_cast<size_t>(input)];
    if (chain < 0) {
      chain = static_cast<int>(extents_.size());
      extents_.push_back({0, bytes(input)});
      chain_of_[static_cast<size_t>(input)] = chain;
    }
    const int64_t at = relative_[static_cast<size_t>(input)] + offset;
    chain_of_[static_cast<size_t>(output)] = chain;
    relative_[static_cast<size_t>(output)] = at;
    Extent& e = extents_[static_cast<size_t>(chain)];
    e.begin = std::min(e.begin, at);
    e.end = std::max(e.end, at + bytes(output));
  }

 private:
  struct Extent {
    int64_t begin = 0, end = 0;
  };
  int64_t bytes(BufferId b) const { return plan_.buffers[static_cast<size_t>(b)].bytes; }

  const Plan& plan_;
  std::vector<int> chain_of_;
  std::vector<int64_t> relative_;
  std::vector<Extent> extents_;
};

bool is_whole_dense_view(const View& view) {
  return view.sweeps.empty() && view.offset_elements == 0 && view.strides == ir::compute_strides(view.shape);
}

int declare_overlaps(const ir::Graph& graph, Plan& plan, int64_t alignment) {
  const BufferUses uses = find_buffer_uses(plan);
  OverlapChains chains(plan);
  int declared = 0;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (plan.steps[s].is_loop()) continue;
    KernelCall& call = std::get<KernelCall>(plan.steps[s].what);
    if (call.node < 0 || call.overlap || call.inputs.empty() || call.outputs.size() != 1) continue;
    const View& input = call.inputs[0];
    const View& output = call.outputs[0];
    const std::vector<int>& input_uses = uses.steps[static_cast<size_t>(input.buffer)];
    const bool consumed = input_uses.back() == static_cast<int>(s) && !uses.in_loop[static_cast<size_t>(input.buffer)] &&
                          !is_model_buffer(plan.outputs, input.buffer);
    if (!consumed || input.buffer == output.buffer || !is_whole_dense_view(input) || !is_whole_dense_view(output)) {
      continue;
    }
    std::optional<DeclaredOverlap> best;
    int64_t best_span = std::numeric_limits<int64_t>::max();
    for (Traversal traversal : {Traversal::kAscending, Traversal::kDescending}) {
      Result<SegmentKernel> kernel = describe_segment_call(graph, call, traversal);
      if (!kernel) break;
      const int64_t offset = choose_overlap_offset(*kernel, compute_overlap_limit(*kernel), alignment);
      const int64_t span = chains.span_with(input.buffer, output.buffer, offset);
      if (span < best_span) {  // strict: a tie keeps ascending
        best_span = span;
        best = DeclaredOverlap{0, traversal, offset};
      }
    }
    if (!best) continue;
    call.overlap = best;
    chains.join(input.buffer, output.buffer, best->offset_bytes);
    ++declared;
  }
  return declared;
}

// Removes, one call at a time in step order, the overlap of each unfused
// call when the plan's peak stays at most what it was with every overlap.
// A declared overlap only lowers the live bytes where its pair of buffers
// both live (declared_overlaps.h), so removing one adds its shared bytes
// there and changes nothing else: one memory accounting for all the calls.
int drop_overlaps_the_peak_does_not_need(Plan& plan) {
  PlanMemory memory = compute_plan_memory(plan);
  std::vector<int64_t>& live = memory.live_bytes;
  int dropped = 0;
  for (Step& step : plan.steps) {
    if (step.is_loop()) continue;
    KernelCall& call = std::get<KernelCall>(step.what);
    if (!call.overlap || !call.fused.empty()) continue;
    const PlacementBuffer& output = memory.buffers.at(static_cast<size_t>(call.outputs.at(0).buffer));
    const PlacementBuffer& input = memory.buffers.at(static_cast<size_t>(output.anchor));
    const int64_t shared = count_anchored_shared_bytes(output, input);
    const int first = std::max(output.first_step, input.first_step);
    const int last = std::min({output.last_step, input.last_step, static_cast<int>(live.size()) - 1});
    bool raises = false;
    for (int p = first; p <= last; ++p) raises = raises || live[static_cast<size_t>(p)] + shared > memory.peak_bytes;
    if (raises) continue;
    for (int p = first; p <= last; ++p) live[static_cast<size_t>(p)] += shared;
    call.overlap.reset();
    ++dropped;
  }
  return dropped;
}

// Steps 1-3 of apply_overlap, the blocks starting at `left_unfused` not fused
// (nor, when `only` is not null, those not starting at one of its nodes).
OverlapResult lower_overlap(const ir::Graph& graph, Plan plan, const OverlapOptions& options,
                            const std::vector<ir::NodeId>& left_unfused, const std::vector<ir::NodeId>* only) {
  OverlapResult result;
  if (options.fuse_inverted_bottlenecks) {
    result.fused = fuse_inverted_bottlenecks(graph, plan, options.alignment, left_unfused, only);
  }
  result.overlaps = declare_overlaps(graph, plan, options.alignment);
  if (options.only_where_the_peak_needs_it) {
    result.dropped = drop_overlaps_the_peak_does_not_need(plan);
    result.overlaps -= result.dropped;
  }
  result.plan = std::move(plan);
  return result;
}

}  // namespace

std::vector<ir::NodeId> list_fused_block_heads(const Plan& plan) {
  std::vector<ir::NodeId> heads;
  for (const Step& step : plan.steps) {
    if (!step.is_loop() && !step.call().fused.empty()) heads.push_back(step.call().node);
  }
  return heads;
}

OverlapResult apply_overlap(const ir::Graph& graph, Plan plan, const OverlapOptions& options) {
  OverlapResult result = lower_overlap(graph, plan, options, options.leave_unfused, nullptr);
  if (options.fuse_inverted_bottlenecks && options.fuse_only_where_the_peak_needs_it) {
    const int64_t limit =
        std::max(compute_plan_memory(result.plan).peak_bytes, options.fusion_peak_allowance_bytes);
    // The trials fuse only blocks fused above: with a block left unfused the
    // peak a fusion is compared with differs, and a block that raised it
    // there could otherwise be fused here.
    const std::vector<ir::NodeId> fused_heads = list_fused_block_heads(result.plan);
    std::vector<ir::NodeId> left_unfused = options.leave_unfused;
    for (ir::NodeId head : fused_heads) {
      left_unfused.push_back(head);
      OverlapResult trial = lower_overlap(graph, plan, options, left_unfused, &fused_heads);
      if (compute_plan_memory(trial.plan).peak_bytes <= limit) {
        result = std::move(trial);
      } else {
        left_unfused.pop_back();
      }
    }
    result.unfused = static_cast<int>(left_unfused.size() - options.leave_unfused.size());
  }
  if (result.fused + result.overlaps > 0) result.plan.techniques.push_back("overlap");
  result.note = "overlap: " + std::to_string(result.fused) + " inverted bottlenecks fused, " +
                std::to_string(result.overlaps) + " outputs over consumed inputs";
  if (result.unfused > 0) {
    result.note += " (" + std::to_string(result.unfused) + " more blocks the peak does not need left unfused)";
  }
  if (result.dropped > 0) {
    result.note += " (" + std::to_string(result.dropped) + " more the peak does not need left ordinary)";
  }
  return result;
}

}  // namespace tinyfit::plan
