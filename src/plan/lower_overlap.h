// Segment-level overlap (vMCU; ../shared/papers/vmcu-segment-memory.txt) as a
// lowering of a plan of whole-operator calls: inverted bottlenecks fused into
// one call each, and outputs declared over the inputs their calls consume.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::plan {

struct OverlapOptions {
  // Fuse expand -> depthwise -> project [-> residual add] chains whose
  // intermediate tensors nothing else reads (tinyfit/segment.h's fused
  // kernel): none of them is materialised, the mid tensor lives in a ring of
  // (K-1)*W+K expanded pixels.
  bool fuse_inverted_bottlenecks = true;
  int64_t alignment = 4;  // of every buffer (plan/placement_input.h kDefaultAlignmentBytes)
  // Keep a standalone call's overlap only where the peak needs it: after
  // every overlap is declared, each call that is not fused gets its ordinary
  // kernel back (no overlap) when the plan's peak stays the same without it.
  // A segment kernel walks pixel by pixel in the order the overlap needs; the
  // ordinary plan's kernels (1x1 over pairs of pixels, im2col GEMM, depthwise
  // interior rows) are faster, so an overlap away from the peak costs time
  // and saves no memory.
  bool only_where_the_peak_needs_it = false;
  // Fuse an inverted bottleneck only where the peak needs it: after fusing
  // every block it can, each fused block is left unfused again, one at a
  // time in step order (the whole lowering redone each time), when the
  // plan's peak stays at most max(its peak with every block fused,
  // fusion_peak_allowance_bytes), and no block fused that was not fused
  // with every block. The fused kernel computes a block pixel by
  // pixel from a ring of expanded pixels and is slower than the ordinary
  // kernels of the block's calls, so a fusion the peak does not need costs
  // time and saves no memory. Greedy in step order, not optimal.
  bool fuse_only_where_the_peak_needs_it = false;
  // The peak the unfused blocks may raise the plan to (a --sram budget; 0:
  // no higher than with every block fused).
  int64_t fusion_peak_allowance_bytes = 0;
  // Blocks never fused, by their first node (the head of a fused call:
  // list_fused_block_heads), e.g. those a latency budget leaves unfused.
  std::vector<ir::NodeId> leave_unfused;
};

struct OverlapResult {
  Plan plan;
  int fused = 0;     // fused calls
  int overlaps = 0;  // calls that declare an overlap
  int dropped = 0;   // overlaps removed again (only_where_the_peak_needs_it)
  int unfused = 0;   // fusable blocks left unfused (fuse_only_where_the_peak_needs_it)
  std::string note;  // for the candidate report
};

// What: on the plain steps of `plan` (loops are kept as they are):
//  1. each fusable inverted bottleneck becomes one fused call with its
//     workspace, and the buffers only its nodes used disappear, unless that
//     raises the plan's peak (on tiny images the ring of expanded pixels
//     outweighs the tensors it replaces);
//  2. each call with a segment kernel (plan/segment_call.h) whose input view's
//     buffer it consumes (no later call uses it; not a model output) declares
//     its output over that input at the offset its kernel's limit allows
//     (segment_closed_form.h), aligned. The traversal is chosen call by call
//     so that the chain of buffers tied by overlaps (one rigid group for
//     placement) spans the fewest bytes: descending moves an output up,
//     ascending down, so a chain does not drift off in one direction. This is
//     tinyfit's answer to vMCU's circular pool (docs/overlap.md): no modulo
//     addressing, no wrap-around;
//  3. with only_where_the_peak_needs_it, the overlaps of unfused calls the
//     peak does not need are removed again, one at a time in step order.
// With fuse_only_where_the_peak_needs_it, steps 1-3 are redone with each
// fused block left unfused in turn, kept unfused when the peak allows.
// Requires: plan from build_operator_plan, build_pex_plan or build_motes_plan
// (row loops kept as they are), not placed.
// Guarantees: verify_plan holds; MACs and the graph's outputs unchanged; the
// peak not above the input plan's;
// techniques gains "overlap" when anything was fused or overlapped.
OverlapResult apply_overlap(const ir::Graph& graph, Plan plan, const OverlapOptions& options = {});

// The first node of every fused call of `plan`, in step order.
std::vector<ir::NodeId> list_fused_block_heads(const Plan& plan);

}  // namespace tinyfit::plan
