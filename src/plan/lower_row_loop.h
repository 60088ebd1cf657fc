// Row loops (issue 11 §2, MOTES §4.4; DESIGN.md "Plan v2"; docs/row_loops.md):
// a consecutive run of an operator order whose operators compute output rows
// from input rows (sliding windows: Conv2D, DepthwiseConv2D, pools; one to
// one: element-wise operators, residual Adds) runs as one loop over the rows
// of its last operator's output, `tile` rows at a time, so that no tensor of
// the run is ever whole in memory unless something after the loop reads it.
//
// Without recomputation: every operator computes each of its output rows
// exactly once. In each iteration an operator computes the rows [H(b), H(e))
// of its output that its consumers in the loop will need by the end of the
// iteration (H: the consumers' windows composed back from the loop's chunk
// [b, e), plan.h Bound; the first iteration starts at row 0, the last one
// finishes the tensor), reading the window of input rows those rows need.
// An output only the loop reads lives as rows in a buffer of the loop, of
// the least height that holds every iteration's rows. When a reader's window
// needs rows again in the next iteration, that buffer is carried
// (BufferRole::kCarried, live over the whole loop) and MOTES's BlockConcat, a
// kCopy at the start of the iteration, moves the kept rows to its front
// (docs/row_loops.md: why not storage folding); else it is kPartial (live
// only from its writer to its last reader in the iteration). When it takes
// fewer bytes of loop buffers, the loop walks a few steps more than the
// sink's rows, the sink idle while the producers fill their buffers, so that
// no iteration computes more than a tile's worth of rows of any operator.
// An operator may also run ahead of its readers, computing every row its
// inputs in the loop already hold, when that keeps fewer bytes: a tensor
// read by a deep and a shallow branch then keeps only the deep reader's
// window, and the shallow branch's (smaller) output keeps the rows between
// them (docs/row_loops.md, "Readers at different depths").
// With most_rate above 1 the loop may also walk several steps per row of its
// sink (the sink's rows a Bound with a divisor), so that producers before a
// stride-2 window compute one row a step instead of two at once
// (docs/row_loops.md, "Producers at their own rate"); the lowering keeps the
// rate and lag that need the fewest bytes of loop buffers.
// A loop may end at a global pool (partition::accumulates_rows): the loop
// then walks the rows of the pool's input, the pool folds each iteration's
// rows into an int32 accumulator per channel (a kAccumulate call, an
// accumulator buffer live over the loop) and a kFinalize call after the loop
// writes its output, so the tensor it pools lives only as rows.
// MACs equal ordinary execution's; the extra work is the copies.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::plan {

struct RowLoopSpec {
  // Operators of the BufferGraph, consecutive in the order (any listing
  // order); the last in the order is the loop's sink, whose output rows the
  // loop walks; every other one feeds a later operator of the run or is
  // another sink (its output as many rows, handed on whole, the loop's chunk
  // of them computed in each iteration).
  std::vector<int> ops;
  int64_t tile = 1;  // output rows of the sink per iteration, 1 <= tile <= its rows
  // kRows: NHWC rows; kTokens: the tokens of [.., tokens, features] tensors,
  // on whichever axis each tensor holds them (partition/row_geometry.h
  // find_loop_axes).
  LoopAxis axis = LoopAxis::kRows;
  // The most steps per sink row the loop may walk, `tile` steps per
  // iteration; 1: one step per row, the tile in rows of the sink.
  int64_t most_rate = 1;
};

// Whether `spec` can run as a row loop in `order`: every operator has one
// output. Rows: NHWC, and every activation input NHWC whose rows its output
// rows map to by a window or one to one (ir::OpDecl::map_axes; broadcast rows
// are read whole). Tokens: each tensor's token axis as find_loop_axes finds
// it; an input without one (attention's keys and values) is read whole and
// comes from before the loop. None runs in place. The error names the
// operator and the reason (exit 2: a loop not built for it).
Status check_row_loop(const ir::Graph& graph, const analysis::BufferGraph& bg, const analysis::Order& order,
                      const RowLoopSpec& spec);

// What: the plan of `order` with one kWhole call per operator (as
// build_operator_plan), except that each spec's operators run as one Loop
// over rows or tokens (spec.axis) at the position of its first operator:
//  - an operator's output lives in rows of a loop buffer when only operators
//    of its loop read it: kCarried when rows outlive an iteration (a kCopy
//    moves the rows still needed to its front before the operator writes its
//    next rows), else kPartial; otherwise the whole tensor, written by rows;
//  - inputs from before the loop are whole buffers read through windows;
//  - every call computes all channels of its rows (kWhole), but a global
//    pool ending the loop (kAccumulate, then kFinalize after the loop).
// Buffers are those the calls use: a buffer of bg whose tensor lives only in
// rows of a loop buffer has no plan buffer. techniques gets "rows".
// Requires: bg == build_buffer_graph(graph) (or in place: a run's operators
// must not be merged); `order` topological for bg; specs disjoint.
// Guarantees: verify_plan holds (before placement); count_plan_macs ==
// count_graph_macs.
Result<Plan> build_row_loop_plan(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                 const analysis::Order& order, const std::vector<RowLoopSpec>& loops);

}  // namespace tinyfit::plan
