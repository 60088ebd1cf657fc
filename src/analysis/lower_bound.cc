#include "analysis/lower_bound.h"

namespace tinyfit::analysis {

PeakLowerBound compute_peak_lower_bound(const BufferGraph& bg) {
  PeakLowerBound bound;
  for (size_t i = 0; i < bg.operators.size(); ++i) {
    const Operator& op = bg.operators[i];
    int64_t bytes = op.workspace_bytes;
    for (int b : op.inputs) bytes += bg.buffers[static_cast<size_t>(b)].bytes;
    for (int b : op.outputs) bytes += bg.buffers[static_cast<size_t>(b)].bytes;
    if (bytes > bound.bytes) bound = {bytes, static_cast<int>(i)};
  }
  return bound;
}

}  // namespace tinyfit::analysis
