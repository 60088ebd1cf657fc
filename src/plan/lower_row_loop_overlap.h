// Overlap inside row loops (issue 12 item 5, vMCU inside MOTES's row loops;
// docs/overlap.md "Row loops"): a row loop reads each whole input by rows,
// top to bottom, and writes each whole output by rows, top to bottom, so an
// output the loop writes may start below an input the loop consumes and
// overwrite the input rows no later read needs. This is how the model input
// leaves the peak of a plan whose first row loop reads it: during the loop
// the pair takes the input's bytes plus the distance, not input + output.
//
// The limit. Number the calls of the loop in execution order (iteration i,
// call p of the body: t = i * |body| + p). A call at t writes output bytes
// [.., we_t) (for a whole row view: its last row's end, we_t =
// rows_end * output_row_bytes) and reads input bytes [rs_t, ..) (its first
// row's start); both come from the loop's Bounds evaluated for the
// iteration's chunk (the hull of each view instance, so any view of a buffer
// the loop writes counts, a carried or partial row buffer's too). With the
// output starting d bytes after the input, every write lands below every
// read at or after it when
//     d <= L = min over writes t of ( min over reads t' >= t of rs_t' ) - we_t
// (a read in the same call counts: a row kernel may store an output row
// before it loads its last input row). One backward pass over the loop's
// call instances computes it: O(iterations x calls). verify_plan re-derives
// safety independently by replaying the loop's accesses byte by byte
// (verify_row_loop_overlaps.h), with no monotonicity assumed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "plan/plan.h"

namespace tinyfit::plan {

// Whether `view` shows a whole NHWC tensor of batch 1 held densely from the
// first byte of its buffer, following the rows of loop 0 with base 0 (how a
// row loop reads its inputs and writes its outputs whole), and no other axis.
bool is_whole_row_view(const View& view);

// What: L above for the pair (input, output) in `loop`, or nullopt when no
// write precedes a read (any offset is then as safe as the placement makes
// it; the lowering declares none).
// Requires: loop is a row loop whose body holds calls only.
std::optional<int64_t> compute_row_loop_overlap_limit(const Plan& plan, const Loop& loop, BufferId input,
                                                      BufferId output);

struct RowLoopOverlapResult {
  Plan plan;
  int overlaps = 0;          // loops that declare one
  int64_t shared_bytes = 0;  // sum over them of the bytes each pair shares
  std::string note;          // for the candidate report
};

// What: for each row loop among `plan`'s steps, of the pairs (input it
// consumes, output it writes first) the one sharing the most bytes at the
// offset min(0, L rounded down to `alignment`) (the pair shares the most
// bytes at every offset in [min(0, in - out), max(0, in - out)]) is declared in
// Loop::overlaps. An input qualifies when every view of it in the loop is a
// whole row view, no call of the loop writes it, nothing after the loop uses
// it and it is no model output; an output when the loop writes it through
// whole row views only, nothing before the loop uses it, it is no model input
// and no declared overlap already places it.
// Requires: plan not placed (offsets -1).
// Guarantees: verify_plan holds if it held; live bytes at no position
// increase; kernel calls, MACs and outputs unchanged (the kernels write at
// other addresses, nothing more); techniques gains "rowoverlap" when a loop
// declares one.
// `at_limit`: declare L itself (rounded down) instead of min(0, L), the
// output as far up as it may go; the same bytes are shared when the output
// fits in the input, but the placements differ (the caller may try both).
RowLoopOverlapResult apply_row_loop_overlaps(Plan plan, int64_t alignment = 4, bool at_limit = false);

}  // namespace tinyfit::plan
