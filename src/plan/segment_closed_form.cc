#include "plan/segment_closed_form.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "support/diag.h"

namespace tinyfit::plan {
namespace {

constexpr int64_t kNone = std::numeric_limits<int64_t>::max();

int64_t min_of(int64_t a, int64_t b) { return std::min(a, b); }

// a + b, kNone when either is kNone.
int64_t add_terms(int64_t a, int64_t b) { return a == kNone || b == kNone ? kNone : a + b; }

// min over output indices o in [lo, hi] of first(o) * in_scale - o * out_scale,
// first(o) = the input index of o's first in-bounds tap. Once the window's
// origin o*stride - pad is >= 0 the first tap is the origin, linear in o, so
// only the padded border and the two ends are evaluated.
int64_t min_axis_term(const ir::Window& window, int64_t in_extent, int64_t lo, int64_t hi, int64_t in_scale,
                      int64_t out_scale) {
  if (lo > hi) return kNone;
  auto term = [&](int64_t o) { return find_tap_span(window, o, in_extent).first * in_scale - o * out_scale; };
  const int64_t linear_from =
      window.pad_before <= 0 ? 0 : (window.pad_before + window.stride - 1) / window.stride;
  int64_t best = kNone;
  for (int64_t o = lo; o <= hi && o < linear_from; ++o) best = min_of(best, term(o));
  const int64_t from = std::max(lo, linear_from);
  if (from <= hi) best = min_of(best, min_of(term(from), term(hi)));
  return best;
}

OverlapLimit limit_windowed_ascending(const SegmentKernel& k) {
  const bool conv = k.op == SegmentOp::kConv2D;
  const int64_t ci = k.in_channels, co = k.out_channels;
  const int64_t blocks = count_channel_blocks(co, k.output_block);
  const int64_t last_block = co - (blocks - 1) * k.output_block;
  const int64_t stored_before_last = conv ? co - last_block : 0;
  // a(p)*Ci - p*Co = n*batch_step + row_term(oy) + col_term(ox).
  const int64_t batch_step = k.in_rows * k.in_cols * ci - k.out_rows * k.out_cols * co;
  auto rows = [&](int64_t lo, int64_t hi) {
    return min_axis_term(k.row_window, k.in_rows, lo, hi, k.in_cols * ci, k.out_cols * co);
  };
  auto cols = [&](int64_t lo, int64_t hi) { return min_axis_term(k.col_window, k.in_cols, lo, hi, ci, co); };
  const int64_t all_rows = rows(0, k.out_rows - 1);
  const int64_t all_cols = cols(0, k.out_cols - 1);
  const int64_t later_batches = k.batch >= 2 ? min_of(batch_step, (k.batch - 1) * batch_step) : kNone;
  int64_t best = add_terms(later_batches, add_terms(all_rows, all_cols));
  if (blocks >= 2) {
    best = min_of(best, add_terms(min_of(0, (k.batch - 1) * batch_step), add_terms(all_rows, all_cols)));
  } else {
    // Pixel 0 stores its only block after all its reads: nothing precedes them.
    best = min_of(best, add_terms(rows(1, k.out_rows - 1), all_cols));
    best = min_of(best, add_terms(rows(0, 0), cols(1, k.out_cols - 1)));
  }
  if (best == kNone) return {Traversal::kAscending, std::nullopt};
  return {Traversal::kAscending, (best - stored_before_last) * k.element_bytes};
}

// Linear index (over batch, rows, cols of the grid the window reads) of the
// first or last in-bounds tap of output pixel p.
int64_t find_tap_pixel(const ir::Window& row_window, const ir::Window& col_window, int64_t in_rows, int64_t in_cols,
                       int64_t out_rows, int64_t out_cols, int64_t p, bool last) {
  const int64_t n = p / (out_rows * out_cols);
  const TapSpan rows = find_tap_span(row_window, p / out_cols % out_rows, in_rows);
  const TapSpan cols = find_tap_span(col_window, p % out_cols, in_cols);
  return (n * in_rows + (last ? rows.last : rows.first)) * in_cols + (last ? cols.last : cols.first);
}

// The last mid computed before output p (ascending; positions are indices):
// the one p's depthwise window needs last, with the rest of its group when
// the expand groups them.
int64_t find_last_mid(const SegmentKernel& k, int64_t p) {
  return find_last_computed_mid_position(
      k, find_tap_pixel(k.row_window, k.col_window, k.mid_rows, k.mid_cols, k.out_rows, k.out_cols, p, true));
}

OverlapLimit limit_inverted_bottleneck_ascending(const SegmentKernel& k) {
  const int64_t pixels = k.batch * k.out_rows * k.out_cols;
  int64_t best = kNone;
  if (k.residual && (pixels >= 2 || count_channel_blocks(k.out_channels, k.output_block) >= 2)) best = 0;
  int64_t computed = -1;  // mids computed so far (all of [0, computed])
  for (int64_t p = 0; p < pixels; ++p) {
    const int64_t needed = find_last_mid(k, p);
    for (int64_t i = computed + 1; i <= needed && p >= 1; ++i) {
      const int64_t expand_first = find_tap_pixel(k.expand_row_window, k.expand_col_window, k.in_rows, k.in_cols,
                                                  k.mid_rows, k.mid_cols, i, false);
      best = min_of(best, expand_first * k.in_channels - p * k.out_channels);
    }
    computed = std::max(computed, needed);
  }
  if (best == kNone) return {Traversal::kAscending, std::nullopt};
  return {Traversal::kAscending, best * k.element_bytes};
}

OverlapLimit limit_ascending(const SegmentKernel& k) {
  return k.op == SegmentOp::kInvertedBottleneck ? limit_inverted_bottleneck_ascending(k)
                                                : limit_windowed_ascending(k);
}

// The ring an ascending record needs: the most mids from the oldest one an
// output still reads to the last one computed.
int64_t count_ring_ascending(const SegmentKernel& k) {
  const int64_t pixels = k.batch * k.out_rows * k.out_cols;
  // oldest[p]: the first mid any output from p on still reads.
  std::vector<int64_t> oldest(static_cast<size_t>(pixels));
  int64_t running = std::numeric_limits<int64_t>::max();
  for (int64_t p = pixels - 1; p >= 0; --p) {
    running = std::min(running, find_tap_pixel(k.row_window, k.col_window, k.mid_rows, k.mid_cols, k.out_rows,
                                               k.out_cols, p, false));
    oldest[static_cast<size_t>(p)] = running;
  }
  int64_t computed = -1;
  int64_t ring = 1;
  for (int64_t p = 0; p < pixels; ++p) {
    computed = std::max(computed, find_last_mid(k, p));
    ring = std::max(ring, computed - oldest[static_cast<size_t>(p)] + 1);
  }
  return ring;
}

}  // namespace

OverlapLimit compute_overlap_limit(const SegmentKernel& kernel) {
  const std::string problem = check_segment_kernel(kernel);
  TINYFIT_CHECK(problem.empty()) << "segment kernel: " << problem;
  if (kernel.traversal == Traversal::kAscending) return limit_ascending(kernel);
  const OverlapLimit mirrored = limit_ascending(mirror_segment_kernel(kernel));
  if (!mirrored.limit_bytes) return {Traversal::kDescending, std::nullopt};
  return {Traversal::kDescending, kernel.input_bytes() - kernel.output_bytes() - *mirrored.limit_bytes};
}

int64_t compute_segment_ring_pixels(const SegmentKernel& kernel) {
  TINYFIT_CHECK(kernel.op == SegmentOp::kInvertedBottleneck) << "a ring of mid pixels for a "
                                                              << segment_op_name(kernel.op) << " kernel";
  // Either traversal's: the lowering sizes the ring before it picks one, and
  // an expand's groups of mids start at opposite ends in the two.
  SegmentKernel ascending = kernel, descending = kernel;
  ascending.traversal = Traversal::kAscending;
  descending.traversal = Traversal::kDescending;
  return std::max(count_ring_ascending(ascending), count_ring_ascending(mirror_segment_kernel(descending)));
}

int64_t compute_inverted_bottleneck_workspace_bytes(const SegmentKernel& kernel) {
  const int64_t elements = (compute_segment_ring_pixels(kernel) + 3) * kernel.mid_channels +
                           (kernel.residual ? 3 * kernel.out_channels : 0);
  // A group's widened expand inputs (a 1x1 expand's groups of four; a
  // gathered window's, its last group padded) or depthwise pixels.
  const int64_t group = count_expand_group_mids(kernel);
  const bool one_by_one = kernel.expand_row_window.kernel == 1 && kernel.expand_col_window.kernel == 1;
  const int64_t window = kernel.expand_row_window.kernel * kernel.expand_col_window.kernel * kernel.in_channels;
  const int64_t expand_groups = group == 1 ? 0 : one_by_one ? kernel.in_channels / 4 : (window + 3) / 4;
  const int64_t widened_bytes = std::max(expand_groups * group * 8, kernel.mid_channels / 4 * 24);
  return elements * kernel.element_bytes + 8 + widened_bytes;
}

}  // namespace tinyfit::plan
