#include "cost/call_features.h"

#include <algorithm>
#include <cmath>

#include "ir/activation_range.h"

namespace tinyfit::cost {
namespace {

// Taps k in [0, kernel) of the window at output index i that fall inside
// [0, input_extent): the same arithmetic as the kernels' tap ranges.
int64_t count_inbound_taps(const ir::Window& w, int64_t i, int64_t input_extent) {
  const int64_t origin = i * w.stride - w.pad_before;
  const int64_t first = origin < 0 ? (-origin + w.dilation - 1) / w.dilation : 0;
  const int64_t end =
      std::min(w.kernel, input_extent - origin <= 0 ? 0 : (input_extent - origin + w.dilation - 1) / w.dilation);
  return std::max<int64_t>(0, end - first);
}

// Over one windowed axis's output range: the sum of in-bounds taps and the
// outputs whose window is whole.
struct AxisTaps {
  int64_t kernel = 1;
  double outputs = 0;
  double inbound = 0;
  double whole_outputs = 0;
};

AxisTaps count_axis_taps(const ir::Window& w, ir::Range range, int64_t input_extent) {
  AxisTaps taps;
  taps.kernel = w.kernel;
  taps.outputs = static_cast<double>(range.size());
  for (int64_t i = range.begin; i < range.end; ++i) {
    const int64_t n = count_inbound_taps(w, i, input_extent);
    taps.inbound += static_cast<double>(n);
    taps.whole_outputs += n == w.kernel ? 1 : 0;
  }
  return taps;
}

// Output channels the kernels process together (register blocks of four;
// SIMD pairs divide it).
constexpr int64_t kChannelBlock = 4;
constexpr int64_t kWideBlock = 16;
// The im2col GEMM's block: three pixels by two channels by four taps
// (TF_CONV_IM2COL_PIXELS, two SMLAD lanes of 16 bits, a 32-bit load of int8).
constexpr double kGemmPixels = 3, kGemmChannels = 2, kGemmTaps = 4;

// The interior / border / ungrouped counts (call_features.h, from
// kInteriorPixelGroups on) of a call whose windowed axes are `axes` (rows
// first), `other_pixels` pixels per window position, `pixels` written pixels
// with `tap_pixels` in-bounds taps in all, writing output channels `channels`.
// `grouped_channels`: output channel i reads input channel i / factor (a
// depthwise multiplier above 1), so every channel runs alone.
void add_path_features(const std::vector<AxisTaps>& axes, double other_pixels, double pixels, double tap_pixels,
                       ir::Range channels, bool grouped_channels, FeatureVector& f) {
  // Aligned groups: the multiples of four inside the range (the kernels'
  // simd_begin / simd_end).
  const int64_t simd_begin = (channels.begin + kChannelBlock - 1) / kChannelBlock * kChannelBlock;
  const int64_t simd_end = grouped_channels ? simd_begin : channels.end / kChannelBlock * kChannelBlock;
  const double groups = static_cast<double>(std::max<int64_t>(0, simd_end - simd_begin) / kChannelBlock);
  const double ungrouped = static_cast<double>(channels.size()) - groups * kChannelBlock;
  // Interior pixels: whole along every windowed axis. Runs: rows whose
  // window is whole with at least one whole pixel along the other axes.
  double interior = other_pixels, kernel_taps = 1, runs = other_pixels;
  for (size_t a = 0; a < axes.size(); ++a) {
    interior *= axes[a].whole_outputs;
    kernel_taps *= static_cast<double>(axes[a].kernel);
    runs *= a == 0 ? axes[a].whole_outputs : (axes[a].whole_outputs > 0 ? 1 : 0);
  }
  // Window rows in bounds, summed over pixels: the first axis's in-bounds
  // taps times the pixels along the others.
  double tap_rows = other_pixels;
  for (size_t a = 0; a < axes.size(); ++a) tap_rows *= a == 0 ? axes[a].inbound : axes[a].outputs;
  const double kernel_rows = axes.empty() ? 1 : static_cast<double>(axes.front().kernel);
  const bool unrolled = axes.size() == 2 && axes[0].kernel == 3 && axes[1].kernel == 3;
  const double looped = unrolled ? 0 : interior * groups;
  const double row_steps = axes.size() == 2 ? static_cast<double>((axes[1].kernel + 1) / 2) : 1;
  at(f, Feature::kInteriorPixelGroups) = interior * groups;
  at(f, Feature::kInteriorTapGroups) = interior * kernel_taps * groups;
  at(f, Feature::kInteriorTapRowGroups) = looped * kernel_rows;
  at(f, Feature::kInteriorTapStepGroups) = looped * kernel_rows * row_steps;
  at(f, Feature::kInteriorRunGroups) = runs * groups;
  at(f, Feature::kBorderPixels) = pixels - interior;
  at(f, Feature::kBorderPixelGroups) = (pixels - interior) * groups;
  at(f, Feature::kBorderTapGroups) = (tap_pixels - interior * kernel_taps) * groups;
  at(f, Feature::kBorderTapRowGroups) = (tap_rows - interior * kernel_rows) * groups;
  at(f, Feature::kUngroupedElements) = pixels * ungrouped;
  at(f, Feature::kUngroupedTaps) = tap_pixels * ungrouped;
}

// The window kernel's path counts (call_features.h, kOddRunPairs ..
// kPixelPairWork) of a call with two windowed axes `axes` (rows, then
// columns), `other_pixels` pixels per window position (the batch), writing
// `channels` output channels. Its odd runs are the interior run along each
// row (the columns whose window is whole, axes[1].whole_outputs) and, down
// each other column, the rows whose window is whole (axes[0].whole_outputs);
// a run of fewer than two pixels counts as pixel by pixel. `quads`: the call
// runs the rows' interior runs four pixels at a time instead
// (takes_quads_path; kQuadRows .. kQuadStepRows), the column runs in pairs.
void add_odd_run_features(const std::vector<AxisTaps>& axes, double other_pixels, double pixels, double channels,
                          double work_per_tap, bool quads, FeatureVector& f) {
  const double pixel_pairs = pixels * std::ceil(channels / kGemmChannels);
  const double inbound_work = at(f, Feature::kInboundWork);
  at(f, Feature::kPixelPairSlots) = pixel_pairs;
  at(f, Feature::kPixelPairWork) = inbound_work;
  const bool odd = static_cast<int64_t>(channels) % 2 == 1;
  if (axes.size() != 2 || !odd) return;
  const double kernel_rows = static_cast<double>(axes[0].kernel), kernel_cols = static_cast<double>(axes[1].kernel);
  // Along the rows: out_rows runs of `run` pixels over the rows' in-bounds window rows.
  const double run = axes[1].whole_outputs >= 2 ? axes[1].whole_outputs : 0;
  const double out_rows = other_pixels * axes[0].outputs;
  const double tap_rows = other_pixels * axes[0].inbound;  // window rows in bounds, summed over output rows
  // Down the border columns: runs of `column_run` pixels, every window row in bounds.
  const double column_run = axes[0].whole_outputs >= 2 ? axes[0].whole_outputs : 0;
  const double border_cols = other_pixels * (axes[1].outputs - axes[1].whole_outputs);
  const double border_col_taps = other_pixels * (axes[1].inbound - axes[1].whole_outputs * kernel_cols);
  const double row_pairs = quads ? 0 : std::ceil(run / 2), column_pairs = std::ceil(column_run / 2);
  if (quads) {
    const double steps = std::ceil(run / 4);
    at(f, Feature::kQuadRows) = out_rows;
    at(f, Feature::kQuadSteps) = out_rows * steps;
    at(f, Feature::kQuadStepRows) = tap_rows * steps;
  }
  at(f, Feature::kOddRunPairs) = out_rows * row_pairs + border_cols * column_pairs;
  at(f, Feature::kOddRunTapRows) = tap_rows * row_pairs + border_cols * column_pairs * kernel_rows;
  at(f, Feature::kOddRunWork) =
      (tap_rows * row_pairs * kernel_cols + column_pairs * kernel_rows * border_col_taps) * work_per_tap;
  at(f, Feature::kPixelPairSlots) = pixel_pairs - out_rows * run - border_cols * column_run;
  at(f, Feature::kPixelPairWork) =
      inbound_work - (tap_rows * run * kernel_cols + column_run * kernel_rows * border_col_taps) * work_per_tap;
}

// Whether the window kernel runs the call's interior four pixels at a time
// (window_dsp_channel9_serves, call_features.h kQuadRows): one output
// channel of an ungrouped Conv2D whose window rows are nine contiguous
// elements (the input's pixels dense: a Conv2D reads all its input
// channels), at most three of them, pixels 3 or 6 elements apart, at least
// four interior pixels a row.
bool takes_quads_path(const CallGeometry& call, const std::vector<AxisTaps>& axes) {
  const ir::Node& node = *call.node;
  if (node.op != ir::OpType::kConv2D || !call.graph->has_input(node, 0) || call.written.back().size() != 1 ||
      axes.size() != 2 || axes[1].whole_outputs < 4) {
    return false;
  }
  const auto& a = node.attr<ir::ConvAttrs>();
  const int64_t cin = call.graph->input_tensor(node, 0).shape.back();
  const int64_t x_step = a.stride_w * cin;
  return a.groups == 1 && a.dilation_w == 1 && a.kernel_w * cin == 9 && a.kernel_h <= 3 && (x_step == 3 || x_step == 6);
}

// Whether the im2col kernels run the call on their dense pointwise path
// (call_features.h kPointwiseGroups): besides the window, the input view
// holds exactly the written pixels, all input channels each
// (im2col_is_dense_pointwise compares the views' extents): a row chunk whose
// input view is the whole map, as a loop around one node reads it, runs the
// general path.
bool takes_pointwise_path(const CallGeometry& call) {
  const ir::Node& node = *call.node;
  if (node.op != ir::OpType::kConv2D || !call.even_pixels || !call.graph->has_input(node, 0)) return false;
  const auto& a = node.attr<ir::ConvAttrs>();
  const int64_t in_channels = call.graph->input_tensor(node, 0).shape.back();
  int64_t pixels = 1;
  for (size_t axis = 0; axis + 1 < call.written.size(); ++axis) pixels *= call.written[axis].size();
  return a.kernel_h == 1 && a.kernel_w == 1 && a.stride_h == 1 && a.stride_w == 1 && a.pad == ir::Padding2D{} &&
         a.groups == 1 && in_channels % 4 == 0 && call.read_elements == pixels * in_channels;
}

// The im2col GEMM's run and one-by-one paths (call_features.h kGemmRunGroups
// .. kGemmStagedElements) of a Conv2D call off the dense pointwise path:
// `other_pixels` images, `pixels` written pixels, `column` = K elements a
// column, `staged`: a tap's channels not a multiple of four.
void add_gemm_path_features(const CallGeometry& call, const std::vector<AxisTaps>& axes, double other_pixels,
                            double pixels, double work_per_tap, double column, bool staged, FeatureVector& f) {
  const ir::Node& node = *call.node;
  if (node.op != ir::OpType::kConv2D || axes.size() != 2) return;
  const auto& a = node.attr<ir::ConvAttrs>();
  const bool runs = a.groups == 1 && a.dilation_w == 1 && call.work_share == 1.0 && call.even_pixels;
  const double run_pixels = runs ? axes[0].whole_outputs * axes[1].whole_outputs : 0;  // per image
  const double run_groups = other_pixels * std::ceil(run_pixels / kGemmPixels);
  const double gathered_groups =
      std::ceil((pixels - other_pixels * run_pixels) / kGemmPixels) * static_cast<double>(a.groups);
  const bool seven_words = a.kernel_h == 3 && static_cast<double>(a.kernel_w) * work_per_tap == 9;
  at(f, Feature::kGemmRunGroups) = run_groups;
  at(f, Feature::kGemmGatheredGroups) = gathered_groups;
  at(f, Feature::kGemmGatheredRows) = gathered_groups * kGemmPixels * static_cast<double>(a.kernel_h);
  at(f, Feature::kGemmStagedElements) =
      staged ? kGemmPixels * column * (gathered_groups + (seven_words ? 0 : run_groups)) : 0;
}

// Whether the node's output 0 is quantized differently from its input 0.
bool is_rescaled(const ir::Graph& graph, const ir::Node& node) {
  if (node.inputs.empty() || node.outputs.empty() || !graph.has_input(node, 0)) return false;
  const ir::Tensor& in = graph.input_tensor(node, 0);
  const ir::Tensor& out = graph.output_tensor(node, 0);
  if (!in.quant || !out.quant) return false;
  return in.quant->scale != out.quant->scale || in.quant->zero_point != out.quant->zero_point;
}

// Whether the node's fused activation clamps its quantized output inside the
// element type's range (call_features.h kClampedElements).
bool clamps_inside_range(const ir::Graph& graph, const ir::Node& node) {
  if (node.activation.is_none() || node.outputs.empty()) return false;
  const ir::Tensor& out = graph.output_tensor(node, 0);
  if (!out.quant || out.quant->scale.empty() || out.quant->zero_point.empty()) return false;
  const ir::ActivationRange range = ir::compute_activation_range_quantized(
      node.activation, out.dtype, out.quant->scale.front(), out.quant->zero_point.front());
  return range.min > ir::dtype_min(out.dtype) || range.max < ir::dtype_max(out.dtype);
}

// The planar depthwise kernel's counts (call_features.h kPlanarFillRows ..
// kPlanarPairs) of a call writing `batch` images of `rows` output rows of
// `cols` columns, output channels `channels`: dwplanar_run's loops.
void add_planar_features(const CallGeometry& call, double batch, double rows, double cols, ir::Range channels,
                         FeatureVector& f) {
  const ir::Node& node = *call.node;
  if (node.op != ir::OpType::kDepthwiseConv2D || !call.graph->has_input(node, 0) || call.written.size() != 4) return;
  const auto& a = node.attr<ir::ConvAttrs>();
  const ir::Shape& in = call.graph->input_tensor(node, 0).shape;
  if (a.kernel_h != 3 || a.kernel_w != 3 || a.stride_h != 1 || a.stride_w != 1 || a.dilation_h != 1 ||
      a.dilation_w != 1 || in.back() != call.graph->output_tensor(node, 0).shape.back()) {
    return;
  }
  const auto count = static_cast<int64_t>(channels.size());
  const double full_groups = static_cast<double>(count / 4), short_channels = static_cast<double>(count % 4);
  const double groups = full_groups + (short_channels > 0 ? 1 : 0);
  // The rows widened per image: the window's rows of the written rows, those
  // inside the input read, the others zeroed.
  const int64_t first_row = call.written[1].begin - a.pad.top;
  const int64_t last_row = call.written[1].end - 1 - a.pad.top + 2;
  const double filled = static_cast<double>(last_row - first_row + 1);
  const double in_rows =
      static_cast<double>(std::max<int64_t>(0, std::min(last_row, in[1] - 1) - std::max<int64_t>(first_row, 0) + 1));
  // Words of two lanes per plane row (dwplanar_run); the interior ones hold two input columns.
  const double pairs = std::ceil(cols / 2);
  const double words = pairs + 1;
  const double interior = std::clamp<double>(
      static_cast<double>((in[2] + a.pad.left) / 2 - (a.pad.left + 1) / 2), 0, words);
  const double lanes_full = 4 * full_groups * (in_rows * (words - interior) + (filled - in_rows) * words);
  at(f, Feature::kPlanarFillRows) = batch * groups * filled;
  at(f, Feature::kPlanarFillSteps) = batch * full_groups * in_rows * interior;
  at(f, Feature::kPlanarLaneWords) = batch * (lanes_full + short_channels * filled * words);
  at(f, Feature::kPlanarChannelRows) = batch * static_cast<double>(count) * rows;
  at(f, Feature::kPlanarPairs) = batch * static_cast<double>(count) * rows * pairs;
}

}  // namespace

std::string_view feature_name(Feature feature) {
  switch (feature) {
    case Feature::kCalls: return "calls";
    case Feature::kLoopCalls: return "loop_calls";
    case Feature::kRows: return "rows";
    case Feature::kPixels: return "pixels";
    case Feature::kElements: return "elements";
    case Feature::kReadElements: return "read_elements";
    case Feature::kChannelBlocks: return "channel_blocks";
    case Feature::kTaps: return "taps";
    case Feature::kTapRowBlocks: return "tap_row_blocks";
    case Feature::kTapBlocks: return "tap_blocks";
    case Feature::kWideBlocks: return "wide_blocks";
    case Feature::kTapWideBlocks: return "tap_wide_blocks";
    case Feature::kTapVisits: return "tap_visits";
    case Feature::kPatchWork: return "patch_work";
    case Feature::kInboundWork: return "inbound_work";
    case Feature::kPaddedWork: return "padded_work";
    case Feature::kBorderTapVisits: return "border_tap_visits";
    case Feature::kBorderWork: return "border_work";
    case Feature::kTailWork: return "tail_work";
    case Feature::kRescaledElements: return "rescaled_elements";
    case Feature::kGemmSteps: return "gemm_steps";
    case Feature::kPaddedPatch: return "padded_patch";
    case Feature::kPairs: return "pairs";
    case Feature::kPairSteps: return "pair_steps";
    case Feature::kPairTail: return "pair_tail";
    case Feature::kMidPixels: return "mid_pixels";
    case Feature::kExpandWork: return "expand_work";
    case Feature::kExpandElements: return "expand_elements";
    case Feature::kDepthwiseWork: return "depthwise_work";
    case Feature::kDepthwiseTaps: return "depthwise_taps";
    case Feature::kDepthwiseElements: return "depthwise_elements";
    case Feature::kProjectWork: return "project_work";
    case Feature::kProjectElements: return "project_elements";
    case Feature::kResidualElements: return "residual_elements";
    case Feature::kInteriorPixelGroups: return "interior_pixel_groups";
    case Feature::kInteriorTapGroups: return "interior_tap_groups";
    case Feature::kInteriorTapRowGroups: return "interior_tap_row_groups";
    case Feature::kInteriorTapStepGroups: return "interior_tap_step_groups";
    case Feature::kInteriorRunGroups: return "interior_run_groups";
    case Feature::kBorderPixels: return "border_pixels";
    case Feature::kBorderPixelGroups: return "border_pixel_groups";
    case Feature::kBorderTapGroups: return "border_tap_groups";
    case Feature::kBorderTapRowGroups: return "border_tap_row_groups";
    case Feature::kUngroupedElements: return "ungrouped_elements";
    case Feature::kUngroupedTaps: return "ungrouped_taps";
    case Feature::kGemmGroups: return "gemm_groups";
    case Feature::kGemmPairGroups: return "gemm_pair_groups";
    case Feature::kGatherWords: return "gather_words";
    case Feature::kStagedElements: return "staged_elements";
    case Feature::kOddRunPairs: return "odd_run_pairs";
    case Feature::kOddRunTapRows: return "odd_run_tap_rows";
    case Feature::kOddRunWork: return "odd_run_work";
    case Feature::kPixelPairSlots: return "pixel_pair_slots";
    case Feature::kPixelPairWork: return "pixel_pair_work";
    case Feature::kCopyBytes: return "copy_bytes";
    case Feature::kStridedCopyPixels: return "strided_copy_pixels";
    case Feature::kPointwiseGroups: return "pointwise_groups";
    case Feature::kGemmDotSteps: return "gemm_dot_steps";
    case Feature::kGemmOddDots: return "gemm_odd_dots";
    case Feature::kGemmLoneGroups: return "gemm_lone_groups";
    case Feature::kQuadRows: return "quad_rows";
    case Feature::kQuadSteps: return "quad_steps";
    case Feature::kQuadStepRows: return "quad_step_rows";
    case Feature::kClampedElements: return "clamped_elements";
    case Feature::kPlanarFillRows: return "planar_fill_rows";
    case Feature::kPlanarFillSteps: return "planar_fill_steps";
    case Feature::kPlanarLaneWords: return "planar_lane_words";
    case Feature::kPlanarChannelRows: return "planar_channel_rows";
    case Feature::kPlanarPairs: return "planar_pairs";
    case Feature::kGemmRunGroups: return "gemm_run_groups";
    case Feature::kGemmGatheredGroups: return "gemm_gathered_groups";
    case Feature::kGemmGatheredRows: return "gemm_gathered_rows";
    case Feature::kGemmStagedElements: return "gemm_staged_elements";
  }
  return "?";
}

FeatureVector compute_call_features(const CallGeometry& call) {
  FeatureVector f{};
  at(f, Feature::kCalls) = 1;
  at(f, Feature::kLoopCalls) = call.in_loop ? 1 : 0;
  at(f, Feature::kReadElements) = static_cast<double>(call.read_elements);
  if (call.written.empty()) return f;

  // The written view as a tf_view: rank r padded on the left to n, h, w, c.
  const auto rank = static_cast<int>(call.written.size());
  std::array<double, 4> extent{1, 1, 1, 1};
  for (int a = 0; a < rank && a < 4; ++a) extent[static_cast<size_t>(a + 4 - std::min(rank, 4))] =
      static_cast<double>(call.written[static_cast<size_t>(a)].size());
  const double rows = extent[0] * extent[1];
  const double pixels = rows * extent[2];
  const double channels = extent[3];
  at(f, Feature::kRows) = rows;
  at(f, Feature::kPixels) = pixels;
  at(f, Feature::kElements) = pixels * channels;

  const auto whole_blocks = static_cast<int64_t>(channels) / kChannelBlock;
  const double tail_channels = static_cast<double>(static_cast<int64_t>(channels) % kChannelBlock);
  const double blocks = static_cast<double>(whole_blocks) + tail_channels;
  at(f, Feature::kChannelBlocks) = pixels * blocks;
  const double wide_blocks = static_cast<double>((static_cast<int64_t>(channels) + kWideBlock - 1) / kWideBlock);
  at(f, Feature::kWideBlocks) = pixels * wide_blocks;
  at(f, Feature::kTapWideBlocks) = pixels * wide_blocks;
  at(f, Feature::kTaps) = pixels;
  at(f, Feature::kTapRowBlocks) = pixels * blocks;
  at(f, Feature::kTapBlocks) = pixels * blocks;
  at(f, Feature::kTapVisits) = pixels * channels;
  if (call.node == nullptr) {
    at(f, Feature::kCopyBytes) = pixels * channels * static_cast<double>(call.element_bytes);
    at(f, Feature::kStridedCopyPixels) = call.dense_copy ? 0 : pixels;
    return f;
  }

  // Windows are separable: the taps of a pixel are the product of its taps
  // along each windowed axis, so sums over pixels factor per axis. The first
  // windowed axis (rows) is the outer tap loop.
  double windowed_extent = 1, inbound = 1, whole = 1, kernel_taps = 1, row_taps = 1;
  bool first_window = true, grouped_channels = false;
  std::vector<AxisTaps> axes;
  for (const ir::AxisLink& link : ir::op_decl(call.node->op).map_axes(*call.graph, *call.node).links) {
    grouped_channels |= link.output_axis == rank - 1 && link.role == ir::AxisRole::kGrouped && link.factor > 1;
    if (link.role != ir::AxisRole::kWindow || link.output_axis >= rank) continue;
    const ir::Range range = call.written[static_cast<size_t>(link.output_axis)];
    const int64_t input_extent =
        call.graph->input_tensor(*call.node, link.input_index).shape.at(static_cast<size_t>(link.input_axis));
    const AxisTaps taps = count_axis_taps(link.window, range, input_extent);
    axes.push_back(taps);
    windowed_extent *= static_cast<double>(range.size());
    inbound *= taps.inbound;
    whole *= taps.whole_outputs;
    kernel_taps *= static_cast<double>(taps.kernel);
    row_taps *= first_window ? taps.inbound : static_cast<double>(range.size());
    first_window = false;
  }
  const double other_pixels = windowed_extent > 0 ? pixels / windowed_extent : 0;
  const double tap_pixels = other_pixels * inbound;            // sum over pixels of in-bounds taps
  const double border_taps = tap_pixels - other_pixels * whole * kernel_taps;
  const double node_elements = static_cast<double>(call.graph->output_tensor(*call.node, 0).num_elements());
  const double node_work = static_cast<double>(ir::op_decl(call.node->op).count_macs(*call.graph, *call.node));
  const double work_per_tap = node_elements > 0 ? node_work / (node_elements * kernel_taps) * call.work_share : 0;
  at(f, Feature::kTaps) = tap_pixels;
  at(f, Feature::kTapWideBlocks) = tap_pixels * wide_blocks;
  at(f, Feature::kTapRowBlocks) = other_pixels * row_taps * blocks;
  at(f, Feature::kTapBlocks) = tap_pixels * blocks;
  at(f, Feature::kTapVisits) = tap_pixels * channels;
  at(f, Feature::kPatchWork) = tap_pixels * work_per_tap;
  at(f, Feature::kInboundWork) = tap_pixels * channels * work_per_tap;
  at(f, Feature::kPaddedWork) = (pixels * kernel_taps - tap_pixels) * channels * work_per_tap;
  at(f, Feature::kBorderTapVisits) = border_taps * channels;
  at(f, Feature::kBorderWork) = border_taps * channels * work_per_tap;
  at(f, Feature::kTailWork) = tap_pixels * tail_channels * work_per_tap;
  at(f, Feature::kRescaledElements) = is_rescaled(*call.graph, *call.node) ? pixels * channels : 0;
  const double work_per_element = kernel_taps * work_per_tap;
  at(f, Feature::kGemmSteps) = std::ceil(pixels / kGemmPixels) * std::ceil(channels / kGemmChannels) *
                               std::ceil(work_per_element / kGemmTaps);
  at(f, Feature::kPaddedPatch) = (pixels * kernel_taps - tap_pixels) * work_per_tap;
  const double pairs = pixels * std::ceil(channels / kGemmChannels);
  const double whole_steps = std::floor(work_per_element / kGemmTaps);
  at(f, Feature::kPairs) = pairs;
  at(f, Feature::kPairSteps) = pairs * whole_steps;
  at(f, Feature::kPairTail) = pairs * (work_per_element - whole_steps * kGemmTaps);
  add_path_features(axes, other_pixels, pixels, tap_pixels, call.written.back(), grouped_channels, f);
  // The im2col GEMM's groups of three pixels; its channel pairs start at the
  // even channel at or before the range's first.
  const ir::Range out = call.written.back();
  const double groups = std::ceil(pixels / kGemmPixels);
  const double gemm_pairs = std::ceil(static_cast<double>(out.end - out.begin / 2 * 2) / kGemmChannels);
  at(f, Feature::kGemmGroups) = groups;
  const bool pointwise = takes_pointwise_path(call);
  at(f, Feature::kPointwiseGroups) = pointwise ? groups : 0;
  at(f, Feature::kGemmPairGroups) = groups * gemm_pairs;
  // A channel runs alone when the range starts at an odd channel, and when
  // the channels from the first even one on are odd in number.
  const int64_t even_begin = (out.begin + 1) / 2 * 2;
  const double lone = static_cast<double>(out.begin % 2 + (out.end > even_begin ? (out.end - even_begin) % 2 : 0));
  const double words = std::ceil(work_per_element / kGemmTaps);
  at(f, Feature::kGemmDotSteps) = groups * gemm_pairs * words;
  at(f, Feature::kGemmOddDots) = static_cast<int64_t>(words) % 2 == 1 ? groups * gemm_pairs : 0;
  at(f, Feature::kGemmLoneGroups) = groups * lone;
  at(f, Feature::kGatherWords) = kGemmPixels * groups * std::ceil(work_per_element / kGemmTaps);
  const bool staged = std::fmod(work_per_tap, kGemmTaps) != 0;
  at(f, Feature::kStagedElements) = staged ? kGemmPixels * groups * work_per_element : 0;
  if (!pointwise) add_gemm_path_features(call, axes, other_pixels, pixels, work_per_tap, work_per_element, staged, f);
  add_odd_run_features(axes, other_pixels, pixels, channels, work_per_tap, takes_quads_path(call, axes), f);
  at(f, Feature::kClampedElements) = clamps_inside_range(*call.graph, *call.node) ? pixels * channels : 0;
  add_planar_features(call, extent[0], extent[1], extent[2], out, f);
  return f;
}

CallGeometry describe_whole_call(const ir::Graph& graph, const ir::Node& node) {
  CallGeometry geometry;
  geometry.graph = &graph;
  geometry.node = &node;
  for (const int64_t extent : graph.output_tensor(node, 0).shape) geometry.written.push_back({0, extent});
  geometry.read_elements = graph.input_tensor(node, 0).num_elements();
  return geometry;
}

FeatureVector compute_fused_call_features(const ir::Graph& graph, const std::vector<const ir::Node*>& nodes) {
  FeatureVector sum{};
  bool after_depthwise = false;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node& node = *nodes[i];
    const FeatureVector f = compute_call_features(describe_whole_call(graph, node));
    for (size_t j = 0; j < sum.size(); ++j) sum[j] += f[j];
    // The stages by operator: the first node expands, the depthwise follows,
    // the convolution after it projects, an Add is the residual.
    if (node.op == ir::OpType::kDepthwiseConv2D) {
      at(sum, Feature::kDepthwiseWork) += at(f, Feature::kInboundWork);
      at(sum, Feature::kDepthwiseTaps) += at(f, Feature::kTaps);
      at(sum, Feature::kDepthwiseElements) += at(f, Feature::kElements);
      after_depthwise = true;
    } else if (node.op == ir::OpType::kAdd) {
      at(sum, Feature::kResidualElements) += at(f, Feature::kElements);
    } else if (after_depthwise) {
      at(sum, Feature::kProjectWork) += at(f, Feature::kInboundWork);
      at(sum, Feature::kProjectElements) += at(f, Feature::kElements);
    } else {
      at(sum, Feature::kMidPixels) += at(f, Feature::kPixels);
      at(sum, Feature::kExpandWork) += at(f, Feature::kInboundWork);
      at(sum, Feature::kExpandElements) += at(f, Feature::kElements);
    }
  }
  return sum;
}

}  // namespace tinyfit::cost
