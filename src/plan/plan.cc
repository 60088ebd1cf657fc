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
    case BufferRole::kAccumulator: return "accumulator";
    case BufferRole::kWorkspace: return "workspace";
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

int64_t Plan::count_calls() const {
  int64_t calls = 0;
  for (const Step& step : steps) {
    calls += step.is_loop()
                 ? count_iterations(step.loop()) * static_cast<int64_t>(step.loop().body.size())
                 : 1;
  }
  return calls;
}

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

View resolve_view(const View& view, ir::Range chunk) {
  if (view.chunk_axis < 0) return view;
  View resolved = view;
  resolved.offset_elements += chunk.begin * view.chunk_stride;
  resolved.shape[static_cast<size_t>(view.chunk_axis)] = chunk.size();
  resolved.chunk_axis = -1;
  resolved.chunk_stride = 0;
  return resolved;
}

}  // namespace tinyfit::plan
