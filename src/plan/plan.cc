#include "plan/plan.h"

#include <algorithm>

#include "support/diag.h"

namespace tinyfit::plan {

std::string_view buffer_role_name(BufferRole role) {
  switch (role) {
    case BufferRole::kModelInput: return "input";
    case BufferRole::kModelOutput: return "output";
    case BufferRole::kActivation: return "activation";
    case BufferRole::kPartial: return "partial";
    case BufferRole::kCarried: return "carried";
    case BufferRole::kAccumulator: return "accumulator";
    case BufferRole::kWorkspace: return "workspace";
  }
  return "?";
}

std::string_view loop_axis_name(LoopAxis axis) {
  switch (axis) {
    case LoopAxis::kRows: return "rows";
    case LoopAxis::kCols: return "cols";
    case LoopAxis::kChannels: return "channels";
    case LoopAxis::kTokens: return "tokens";
  }
  return "?";
}

std::string_view call_mode_name(CallMode mode) {
  switch (mode) {
    case CallMode::kWhole: return "whole";
    case CallMode::kChunk: return "chunk";
    case CallMode::kAccumulate: return "accumulate";
    case CallMode::kFinalize: return "finalize";
    case CallMode::kCopy: return "copy";
  }
  return "?";
}

std::vector<ir::NodeId> KernelCall::computed_nodes() const {
  std::vector<ir::NodeId> nodes;
  if (node >= 0) nodes.push_back(node);
  nodes.insert(nodes.end(), fused.begin(), fused.end());
  return nodes;
}

const Sweep* View::find_sweep(int axis) const {
  for (const Sweep& sweep : sweeps) {
    if (sweep.axis == axis) return &sweep;
  }
  return nullptr;
}

namespace {

int64_t count_step_calls(const std::vector<Step>& steps) {
  int64_t calls = 0;
  for (const Step& step : steps) {
    calls += step.is_loop() ? count_iterations(step.loop()) * count_step_calls(step.loop().body) : 1;
  }
  return calls;
}

}  // namespace

int64_t Plan::count_calls() const { return count_step_calls(steps); }

View make_dense_view(BufferId buffer, const ir::Shape& shape) {
  View view;
  view.buffer = buffer;
  view.shape = shape;
  view.strides = ir::compute_strides(shape);
  return view;
}

int64_t count_iterations(const Loop& loop) {
  TINYFIT_CHECK(loop.tile >= 1 && loop.extent >= 0) << "loop '" << loop.name << "' tile " << loop.tile;
  return (loop.extent + loop.tile - 1) / loop.tile;
}

ir::Range chunk_of_iteration(const Loop& loop, int64_t i) {
  const int64_t begin = i * loop.tile;
  return {begin, std::min(begin + loop.tile, loop.extent)};
}

Bound make_chunk_bound(BoundOf of, int64_t loop_extent) { return {of, 1, 0, 0, loop_extent}; }

Bound make_constant_bound(int64_t value) { return {BoundOf::kChunkBegin, 0, value, value, value}; }

int64_t evaluate_bound(const Bound& bound, ir::Range chunk, int64_t loop_extent) {
  const int64_t x = bound.of == BoundOf::kChunkBegin ? chunk.begin : chunk.end;
  if (x <= 0) return bound.low;
  if (x >= loop_extent) return bound.high;
  return std::clamp(bound.scale * (x / bound.divisor) + bound.offset, bound.low, bound.high);
}

Bound compose_bound(const Bound& inner, int64_t scale, int64_t offset, int64_t low, int64_t high) {
  TINYFIT_CHECK(scale >= 0 && low <= high && inner.scale >= 0 && inner.low <= inner.high && inner.divisor >= 1)
      << "compose_bound of a decreasing map";
  // clamp_[low,high](scale * clamp_[l,h](z) + offset) == clamp_[L,H](scale * z + offset)
  // with L, H the outer clamp of the inner interval's images (scale >= 0).
  Bound composed;
  composed.of = inner.of;
  composed.scale = scale * inner.scale;
  composed.offset = scale * inner.offset + offset;
  composed.low = std::clamp(scale * inner.low + offset, low, high);
  composed.high = std::clamp(scale * inner.high + offset, low, high);
  composed.divisor = inner.divisor;
  return composed;
}

BoundRange compose_window(const Bound& output_first, const Bound& output_last, const ir::Window& window,
                          int64_t input_extent) {
  const int64_t span = (window.kernel - 1) * window.dilation + 1;
  BoundRange range;
  range.first = compose_bound(output_first, window.stride, -window.pad_before, 0, input_extent);
  range.last = compose_bound(output_last, window.stride, span - window.stride - window.pad_before, 0, input_extent);
  // Where output_last sits at 0 there is no output row, so no window to read.
  if (output_last.low == 0) range.last.low = 0;
  return range;
}

Sweep make_chunk_sweep(int loop, int axis, int64_t loop_extent, bool holds_chunk_only) {
  Sweep sweep;
  sweep.loop = loop;
  sweep.axis = axis;
  sweep.first = make_chunk_bound(BoundOf::kChunkBegin, loop_extent);
  sweep.last = make_chunk_bound(BoundOf::kChunkEnd, loop_extent);
  sweep.base = holds_chunk_only ? sweep.first : make_constant_bound(0);
  return sweep;
}

View follow_chunk(View view, int loop, int axis, int64_t loop_extent, bool holds_chunk_only) {
  view.shape.at(static_cast<size_t>(axis)) = loop_extent;
  view.sweeps.push_back(make_chunk_sweep(loop, axis, loop_extent, holds_chunk_only));
  return view;
}

int64_t ViewInstance::count_elements() const {
  int64_t elements = 1;
  for (int64_t extent : shape) elements *= extent;
  return elements;
}

ByteSpan span_view_bytes(const Plan& plan, const ViewInstance& view) {
  if (view.count_elements() == 0) return {};
  const int64_t element_bytes = ir::dtype_size_bytes(plan.buffers.at(static_cast<size_t>(view.buffer)).dtype);
  int64_t last = view.offset_elements;
  for (size_t a = 0; a < view.shape.size(); ++a) last += (view.shape[a] - 1) * view.strides[a];
  return {view.offset_elements * element_bytes, (last + 1) * element_bytes};
}

ViewInstance resolve_view(const View& view, std::span<const LoopChunk> nest) {
  ViewInstance instance;
  instance.buffer = view.buffer;
  instance.offset_elements = view.offset_elements;
  instance.shape = view.shape;
  instance.strides = view.strides;
  instance.origin.assign(view.shape.size(), 0);
  for (const Sweep& sweep : view.sweeps) {
    TINYFIT_CHECK(sweep.loop >= 0 && static_cast<size_t>(sweep.loop) < nest.size() && sweep.axis >= 0 &&
                  sweep.axis < view.rank())
        << "a sweep of axis " << sweep.axis << " by loop " << sweep.loop << " of " << nest.size();
    const LoopChunk& at = nest[static_cast<size_t>(sweep.loop)];
    const int64_t extent = at.loop->extent;
    const int64_t first = evaluate_bound(sweep.first, at.chunk, extent);
    const int64_t last = evaluate_bound(sweep.last, at.chunk, extent);
    const int64_t base = evaluate_bound(sweep.base, at.chunk, extent);
    const auto axis = static_cast<size_t>(sweep.axis);
    instance.offset_elements += (first - base) * view.strides[axis];
    instance.shape[axis] = std::max<int64_t>(0, last - first);
    instance.origin[axis] = first;
  }
  return instance;
}

}  // namespace tinyfit::plan
