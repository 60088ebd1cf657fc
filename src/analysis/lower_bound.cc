#include "analysis/lower_bound.h"

#include <algorithm>
#include <vector>

namespace tinyfit::analysis {

PeakLowerBound compute_peak_lower_bound(const BufferGraph& bg) {
  PeakLowerBound bound;
  for (size_t i = 0; i < bg.operators.size(); ++i) {
    const Operator& op = bg.operators[i];
    // In-place merges put one buffer on both sides of an operator: count it once.
    std::vector<int> touched = op.inputs;
    touched.insert(touched.end(), op.outputs.begin(), op.outputs.end());
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    int64_t bytes = op.workspace_bytes;
    for (int b : touched) bytes += bg.buffers[static_cast<size_t>(b)].bytes;
    if (bytes > bound.bytes) bound = {bytes, static_cast<int>(i)};
  }
  return bound;
}

}  // namespace tinyfit::analysis
