#include "plan/segment_kernel.h"

#include <algorithm>

#include "support/diag.h"

namespace tinyfit::plan {
namespace {

int64_t floor_to_multiple(int64_t value, int64_t multiple) {
  const int64_t remainder = ((value % multiple) + multiple) % multiple;
  return value - remainder;
}

int64_t ceil_to_multiple(int64_t value, int64_t multiple) { return -floor_to_multiple(-value, multiple); }

// The padding the far side of an axis uses, as the near side's padding of
// the mirrored axis (negative when the last window stops short of the end).
ir::Window mirror_window(const ir::Window& window, int64_t in_extent, int64_t out_extent) {
  ir::Window mirrored = window;
  mirrored.pad_before =
      (out_extent - 1) * window.stride + (window.kernel - 1) * window.dilation + 1 - in_extent - window.pad_before;
  return mirrored;
}

std::string check_axis(const char* what, const ir::Window& window, int64_t in_extent, int64_t out_extent) {
  if (window.kernel < 1 || window.stride < 1 || window.dilation < 1) {
    return std::string(what) + ": window kernel, stride and dilation must be >= 1";
  }
  if (find_tap_span(window, 0, in_extent).empty() || find_tap_span(window, out_extent - 1, in_extent).empty()) {
    return std::string(what) + ": an output index reads no input index";
  }
  return {};
}

}  // namespace

std::string_view traversal_name(Traversal traversal) {
  return traversal == Traversal::kAscending ? "ascending" : "descending";
}

std::string_view segment_op_name(SegmentOp op) {
  switch (op) {
    case SegmentOp::kConv2D: return "conv2d";
    case SegmentOp::kChannelwise: return "channelwise";
    case SegmentOp::kInvertedBottleneck: return "inverted_bottleneck";
  }
  return "?";
}

bool is_safe_offset(const OverlapLimit& limit, int64_t offset_bytes) {
  if (!limit.limit_bytes) return true;
  return limit.traversal == Traversal::kAscending ? offset_bytes <= *limit.limit_bytes
                                                  : offset_bytes >= *limit.limit_bytes;
}

int64_t choose_overlap_offset(const SegmentKernel& kernel, const OverlapLimit& limit, int64_t alignment) {
  TINYFIT_CHECK(alignment >= 1) << "alignment " << alignment;
  if (limit.traversal == Traversal::kAscending) {
    return floor_to_multiple(std::min<int64_t>(limit.limit_bytes.value_or(0), 0), alignment);
  }
  const int64_t flush = kernel.input_bytes() - kernel.output_bytes();
  return ceil_to_multiple(std::max(limit.limit_bytes.value_or(flush), flush), alignment);
}

int64_t compute_overlap_footprint(const SegmentKernel& kernel, int64_t offset_bytes) {
  return std::max(kernel.input_bytes(), offset_bytes + kernel.output_bytes()) - std::min<int64_t>(0, offset_bytes);
}

SegmentKernel mirror_segment_kernel(const SegmentKernel& kernel) {
  SegmentKernel mirrored = kernel;
  mirrored.traversal = kernel.traversal == Traversal::kAscending ? Traversal::kDescending : Traversal::kAscending;
  const bool fused = kernel.op == SegmentOp::kInvertedBottleneck;
  const int64_t window_rows = fused ? kernel.mid_rows : kernel.in_rows;
  const int64_t window_cols = fused ? kernel.mid_cols : kernel.in_cols;
  mirrored.row_window = mirror_window(kernel.row_window, window_rows, kernel.out_rows);
  mirrored.col_window = mirror_window(kernel.col_window, window_cols, kernel.out_cols);
  if (fused) {
    mirrored.expand_row_window = mirror_window(kernel.expand_row_window, kernel.in_rows, kernel.mid_rows);
    mirrored.expand_col_window = mirror_window(kernel.expand_col_window, kernel.in_cols, kernel.mid_cols);
  }
  return mirrored;
}

std::string check_segment_kernel(const SegmentKernel& k) {
  for (int64_t extent : {k.element_bytes, k.batch, k.in_rows, k.in_cols, k.in_channels, k.out_rows, k.out_cols,
                         k.out_channels, k.output_block}) {
    if (extent < 1) return "every extent, the element size and the output block must be >= 1";
  }
  if (k.op == SegmentOp::kChannelwise && k.in_channels != k.out_channels) {
    return "a channel-wise kernel has as many output channels as input channels";
  }
  if (k.op != SegmentOp::kInvertedBottleneck) {
    std::string problem = check_axis("rows", k.row_window, k.in_rows, k.out_rows);
    if (problem.empty()) problem = check_axis("cols", k.col_window, k.in_cols, k.out_cols);
    return problem;
  }
  for (int64_t extent : {k.mid_rows, k.mid_cols, k.mid_channels, k.mid_block}) {
    if (extent < 1) return "mid extents and the mid block must be >= 1";
  }
  if (k.residual && (k.in_rows != k.out_rows || k.in_cols != k.out_cols || k.in_channels != k.out_channels)) {
    return "a residual inverted bottleneck keeps its input's shape";
  }
  for (const std::string& problem :
       {check_axis("expand rows", k.expand_row_window, k.in_rows, k.mid_rows),
        check_axis("expand cols", k.expand_col_window, k.in_cols, k.mid_cols),
        check_axis("depthwise rows", k.row_window, k.mid_rows, k.out_rows),
        check_axis("depthwise cols", k.col_window, k.mid_cols, k.out_cols)}) {
    if (!problem.empty()) return problem;
  }
  return {};
}

int64_t count_channel_blocks(int64_t channels, int64_t block_size) {
  return (channels + block_size - 1) / block_size;
}

int64_t count_expand_group_mids(const SegmentKernel& kernel) {
  // runtime/include/tinyfit/kernel_templates/segment_order.h's
  // TF_SEGMENT_PAIRED_WINDOW_MAX: the __dsp kernel gathers both windows on its stack.
  constexpr int64_t kPairedExpandWindowMax = 64;
  const int64_t window = kernel.expand_row_window.kernel * kernel.expand_col_window.kernel * kernel.in_channels;
  if (kernel.expand_row_window.kernel == 1 && kernel.expand_col_window.kernel == 1) return 3;
  return window >= 4 && window <= kPairedExpandWindowMax ? 2 : 1;
}

int64_t find_last_computed_mid_position(const SegmentKernel& kernel, int64_t needed) {
  const int64_t group = count_expand_group_mids(kernel);
  return std::min(kernel.batch * kernel.mid_rows * kernel.mid_cols - 1, needed - needed % group + group - 1);
}

ir::Range segment_channel_block(int64_t channels, int64_t block_size, int64_t block, Traversal traversal) {
  const int64_t begin = block * block_size;
  const ir::Range ascending{begin, std::min(begin + block_size, channels)};
  if (traversal == Traversal::kAscending) return ascending;
  return {channels - ascending.end, channels - ascending.begin};
}

TapSpan find_tap_span(const ir::Window& window, int64_t out, int64_t extent) {
  const int64_t origin = out * window.stride - window.pad_before;
  const int64_t first_tap = origin >= 0 ? 0 : (-origin + window.dilation - 1) / window.dilation;
  const int64_t room = extent - 1 - origin;  // input indices from the origin to the end
  if (room < 0) return {};
  const int64_t last_tap = std::min(window.kernel - 1, room / window.dilation);
  if (first_tap > last_tap) return {};
  return {origin + first_tap * window.dilation, origin + last_tap * window.dilation};
}

}  // namespace tinyfit::plan
