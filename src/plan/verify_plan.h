// The plan verifier (DESIGN.md: it runs before any execution or emission).
// A failure is our bug, not the user's: it returns an internal Diag.
#pragma once

#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::plan {

// Checks, in this order, and returns the first problem found:
//  - model inputs and outputs: one buffer per graph input and output, a whole
//    buffer (not partial, carried, accumulator or workspace) whose element
//    size is the tensor's and whose bytes hold the whole tensor from its
//    first byte;
//  - structure and nests: buffer ids in range; loops have 1 <= tile <= extent
//    and a non-empty body, at any depth; node ids in range; a call's mode
//    fits its node's kind (kChunk: C- or A-type, its output following a
//    channel loop; kAccumulate / kFinalize: A-type; kCopy: no node); a call
//    whose output follows a row or col loop computes a node whose output
//    rows (cols) map to input rows by a window or one to one; views have one
//    stride per axis; every sweep names a loop around its call, on the view
//    axis that loop's LoopAxis walks, at most one per axis, with
//    non-decreasing bounds;
//  - per iteration of every loop nest (all of them are walked):
//    - bounds: every view addresses only elements inside its buffer (element
//      size from the buffer's dtype) and shows indices inside its tensor;
//    - windows: on every output axis a view sweeps, each input view covers
//      what the node reads for the output's indices, from the operator's
//      declared axis map (ir::OpDecl::map_axes): a window's input range
//      (MemoriaNova eq. 1, clamped) at least, and one-to-one axes exactly or
//      whole;
//    - dataflow: no buffer is read before some earlier call (or the caller,
//      for model inputs) wrote it; a kPartial buffer is written before it is
//      read in each iteration of the innermost loop around all its uses; in
//      buffers that any view sweeps by rows or cols (row loops, carried
//      buffers) this holds element by element: every element a call reads
//      must hold the element of the tensor the view claims it shows, written
//      by that tensor's producer (or moved there by a copy) in this or an
//      earlier iteration; every model output is written;
//  - segment calls: declared overlaps and fused calls (verify_segment_calls.h:
//    the overlap's offset within the limit re-derived by replaying the
//    kernel's accesses, its input consumed);
//  - row loops' declared overlaps (verify_row_loop_overlaps.h: the input
//    consumed, the output fresh, the offset safe by a byte-level replay of
//    the loop's accesses);
//  - placement (when arena_bytes > 0): every buffer has an aligned offset inside
//    the arena, and no two simultaneously live buffers share a byte
//    (plan_memory.h lifetimes, verify_placement.h), except a declared
//    overlap's pair, which sits exactly at its declared distance.
// Cost: the walk visits every call instance, and every element of the views
// of element-tracked buffers: about one pass over the data the row loops move.
Status verify_plan(const ir::Graph& graph, const Plan& plan);

}  // namespace tinyfit::plan
