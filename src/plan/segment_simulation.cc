#include "plan/segment_simulation.h"

#include <algorithm>
#include <limits>

#include "support/diag.h"

namespace tinyfit::plan {
namespace {

// Pixel index `t` of `count` in traversal order.
int64_t pixel_in_order(int64_t t, int64_t count, Traversal traversal) {
  return traversal == Traversal::kAscending ? t : count - 1 - t;
}

struct PixelIndex {
  int64_t n = 0, row = 0, col = 0;
};

PixelIndex split_pixel(int64_t linear, int64_t rows, int64_t cols) {
  return {linear / (rows * cols), linear / cols % rows, linear % cols};
}

// Calls `visit(input pixel)` for every in-bounds tap of the window of output
// (rows, cols) index `at` of a grid of `out_rows` x `out_cols` over an input
// grid of `in_rows` x `in_cols`.
template <typename Visit>
void for_each_tap(const ir::Window& row_window, const ir::Window& col_window, PixelIndex at, int64_t in_rows,
                  int64_t in_cols, Visit&& visit) {
  const TapSpan rows = find_tap_span(row_window, at.row, in_rows);
  const TapSpan cols = find_tap_span(col_window, at.col, in_cols);
  if (rows.empty() || cols.empty()) return;
  for (int64_t r = rows.first; r <= rows.last; r += row_window.dilation) {
    for (int64_t c = cols.first; c <= cols.last; c += col_window.dilation) {
      visit((at.n * in_rows + r) * in_cols + c);
    }
  }
}

class AccessEmitter {
 public:
  AccessEmitter(const SegmentKernel& kernel, const std::function<void(const SegmentAccess&)>& visit)
      : k_(kernel), visit_(visit) {}

  void read(int64_t element_begin, int64_t element_end) { emit(false, element_begin, element_end); }
  void write(int64_t element_begin, int64_t element_end) { emit(true, element_begin, element_end); }

 private:
  void emit(bool is_write, int64_t element_begin, int64_t element_end) {
    visit_({is_write, element_begin * k_.element_bytes, element_end * k_.element_bytes});
  }

  const SegmentKernel& k_;
  const std::function<void(const SegmentAccess&)>& visit_;
};

void trace_windowed(const SegmentKernel& k, AccessEmitter& emit) {
  const int64_t pixels = k.batch * k.out_rows * k.out_cols;
  const int64_t blocks = count_channel_blocks(k.out_channels, k.output_block);
  for (int64_t t = 0; t < pixels; ++t) {
    const int64_t p = pixel_in_order(t, pixels, k.traversal);
    const PixelIndex at = split_pixel(p, k.out_rows, k.out_cols);
    for (int64_t b = 0; b < blocks; ++b) {
      const ir::Range block = segment_channel_block(k.out_channels, k.output_block, b, k.traversal);
      for_each_tap(k.row_window, k.col_window, at, k.in_rows, k.in_cols, [&](int64_t q) {
        if (k.op == SegmentOp::kConv2D) {
          emit.read(q * k.in_channels, (q + 1) * k.in_channels);
        } else {
          emit.read(q * k.in_channels + block.begin, q * k.in_channels + block.end);
        }
      });
      emit.write(p * k.out_channels + block.begin, p * k.out_channels + block.end);
    }
  }
}

// The mid pixel (linear, in the mid grid) the depthwise window of output `p`
// needs last in traversal order: its bottom-right in-bounds tap (ascending)
// or its top-left one (descending).
int64_t find_last_needed_mid(const SegmentKernel& k, int64_t p) {
  const PixelIndex at = split_pixel(p, k.out_rows, k.out_cols);
  const TapSpan rows = find_tap_span(k.row_window, at.row, k.mid_rows);
  const TapSpan cols = find_tap_span(k.col_window, at.col, k.mid_cols);
  const bool ascending = k.traversal == Traversal::kAscending;
  return (at.n * k.mid_rows + (ascending ? rows.last : rows.first)) * k.mid_cols + (ascending ? cols.last : cols.first);
}

void trace_inverted_bottleneck(const SegmentKernel& k, AccessEmitter& emit) {
  const int64_t pixels = k.batch * k.out_rows * k.out_cols;
  const int64_t mids = k.batch * k.mid_rows * k.mid_cols;
  const int64_t mid_blocks = count_channel_blocks(k.mid_channels, k.mid_block);
  const int64_t out_blocks = count_channel_blocks(k.out_channels, k.output_block);
  int64_t next_mid = 0;  // mids computed so far, in traversal order
  for (int64_t t = 0; t < pixels; ++t) {
    const int64_t p = pixel_in_order(t, pixels, k.traversal);
    // pixel_in_order is its own inverse: the needed mid's position in order.
    const int64_t needed_position = pixel_in_order(find_last_needed_mid(k, p), mids, k.traversal);
    for (; next_mid <= find_last_computed_mid_position(k, needed_position); ++next_mid) {
      const PixelIndex mid = split_pixel(pixel_in_order(next_mid, mids, k.traversal), k.mid_rows, k.mid_cols);
      for (int64_t b = 0; b < mid_blocks; ++b) {
        for_each_tap(k.expand_row_window, k.expand_col_window, mid, k.in_rows, k.in_cols,
                     [&](int64_t q) { emit.read(q * k.in_channels, (q + 1) * k.in_channels); });
      }
    }
    for (int64_t b = 0; b < out_blocks; ++b) {
      const ir::Range block = segment_channel_block(k.out_channels, k.output_block, b, k.traversal);
      if (k.residual) emit.read(p * k.in_channels + block.begin, p * k.in_channels + block.end);
      emit.write(p * k.out_channels + block.begin, p * k.out_channels + block.end);
    }
  }
}

}  // namespace

void for_each_segment_access(const SegmentKernel& kernel, const std::function<void(const SegmentAccess&)>& visit) {
  const std::string problem = check_segment_kernel(kernel);
  TINYFIT_CHECK(problem.empty()) << "segment kernel: " << problem;
  AccessEmitter emit(kernel, visit);
  if (kernel.op == SegmentOp::kInvertedBottleneck) {
    trace_inverted_bottleneck(kernel, emit);
  } else {
    trace_windowed(kernel, emit);
  }
}

OverlapLimit simulate_overlap_limit(const SegmentKernel& kernel) {
  const bool ascending = kernel.traversal == Traversal::kAscending;
  bool wrote = false;
  int64_t write_end_max = std::numeric_limits<int64_t>::min();
  int64_t write_begin_min = std::numeric_limits<int64_t>::max();
  OverlapLimit limit{kernel.traversal, std::nullopt};
  for_each_segment_access(kernel, [&](const SegmentAccess& access) {
    if (access.is_write) {
      wrote = true;
      write_end_max = std::max(write_end_max, access.end);
      write_begin_min = std::min(write_begin_min, access.begin);
      return;
    }
    if (!wrote) return;
    const int64_t bound = ascending ? access.begin - write_end_max : access.end - write_begin_min;
    limit.limit_bytes = !limit.limit_bytes ? bound
                        : ascending        ? std::min(*limit.limit_bytes, bound)
                                           : std::max(*limit.limit_bytes, bound);
  });
  return limit;
}

}  // namespace tinyfit::plan
