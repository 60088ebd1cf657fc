// The overlap limit of a segment kernel by formula (vMCU §4's GEMM solution,
// generalised to windows, channel-wise kernels and the fused inverted
// bottleneck). What the lowering uses: O(rows + cols) for windowed kernels,
// O(mid pixels) for the fused one; segment_simulation.h is its test.
//
// Windowed kernels, ascending (descending: through mirror_segment_kernel).
// Output pixel p (linear over batch, rows, cols) reads from input pixel a(p),
// its first in-bounds tap, upwards; the largest write end before any read of
// p is p*Co + the channels stored before p's last block. So
//   Conv2D:      limit = min over p of (a(p)*Ci - p*Co) - (Co - b_last)
//   channelwise: limit = min over p of (a(p) - p)*C
// in elements (b_last = the last block's size; a pixel with a single block
// and no write before it, p = 0, is left out). a(p) - p splits into a row
// part and a col part, each linear beyond the padded border, so the minimum
// is taken over the border rows/cols and the two ends.
//
// For a GEMM (1x1 window over M pixels, K input and N output channels,
// blocks of 1) this is vMCU's footprint max(MN, MK) + min(N, K) - 1.
//
// Fused inverted bottleneck, ascending: mid pixel i is computed just before
// the first output p_i whose depthwise window reaches it (or, with a 1x1
// expand, the other mid of its pair (2j, 2j + 1)), so its expand
// window, from input pixel e(i) up, is read after outputs [0, p_i) were
// stored: limit = min over i with p_i >= 1 of (e(i)*Ci - p_i*Co), and at
// most 0 with a residual (input pixel p is read, block by block, just before
// output pixel p is stored over it).
#pragma once

#include "plan/segment_kernel.h"

namespace tinyfit::plan {

// Requires: check_segment_kernel(kernel) is empty.
// Guarantees: equals simulate_overlap_limit(kernel).
OverlapLimit compute_overlap_limit(const SegmentKernel& kernel);

// The fused inverted bottleneck's workspace ring, in mid pixels: mid pixel i
// lives in slot i mod ring, and no mid pixel is overwritten while an output
// still to be computed needs it, in either traversal (the larger of the two
// smallest rings: an expand's groups of mids make them differ by at most
// two). Requires: op == kInvertedBottleneck.
int64_t compute_segment_ring_pixels(const SegmentKernel& kernel);

// The fused inverted bottleneck's workspace in bytes, as tinyfit/segment.h
// lays it out: the ring, a group's three depthwise pixels and, with a
// residual, three projected pixels, then 16-bit lanes (8-byte aligned: 8
// bytes of slack) where the __dsp kernel widens a group's depthwise pixels
// for the projection (24 bytes per four channels) and, with a grouped expand
// (count_expand_group_mids), a group's inputs (8 bytes per mid per four
// inputs; a gathered window's rounded up to a group of four).
// Requires: op == kInvertedBottleneck.
int64_t compute_inverted_bottleneck_workspace_bytes(const SegmentKernel& kernel);

}  // namespace tinyfit::plan
