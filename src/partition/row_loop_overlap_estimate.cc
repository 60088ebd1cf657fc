#include "partition/row_loop_overlap_estimate.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "ir/op_decl.h"

namespace tinyfit::partition {
namespace {

// One operator's reads of a loop input, by rows.
struct InputRead {
  size_t body_index = 0;
  const std::vector<int64_t>* reader_end = nullptr;  // the reader's output rows complete per iteration
  ir::Window window;
};

struct InputRows {
  std::vector<InputRead> reads;
  int64_t rows = 0;
  int64_t row_bytes = 0;
  bool by_rows = true;  // every read walks axis 1 of a batch-1 NHWC tensor
};

bool is_row_tensor(const ir::Tensor& tensor) {
  return tensor.shape.size() == 4 && tensor.shape[0] == 1 && tensor.shape[1] > 0;
}

int64_t floor_to(int64_t value, int64_t alignment) {
  const int64_t q = value / alignment;
  return (q * alignment > value ? q - 1 : q) * alignment;
}

}  // namespace

std::vector<RowLoopOverlapPair> estimate_row_loop_overlaps(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                                           const PartitionScheme& scheme, const RowGeometry& geometry,
                                                           int64_t alignment) {
  std::vector<RowLoopOverlapPair> pairs;
  if (scheme.axis != PartitionAxis::kRows) return pairs;
  const ir::Node& sink =
      graph.nodes[static_cast<size_t>(bg.operators[static_cast<size_t>(scheme.operators.back())].node)];
  const Result<std::vector<LoopOperatorAxes>> axes =
      find_loop_axes(graph, bg, scheme.operators, find_sink_axis(scheme.axis, graph.output_tensor(sink, 0)), false);
  if (!axes) return pairs;

  // The loop's inputs (by buffer) and how each operator reads them.
  std::map<int, InputRows> inputs;
  for (size_t b = 0; b < axes->size(); ++b) {
    const LoopOperatorAxes& o = (*axes)[b];
    const TensorRows* made = geometry.find(o.output);
    TINYFIT_CHECK(made != nullptr) << "row geometry without the loop's tensor " << o.output;
    for (const LoopRead& read : o.reads) {
      if (read.source != ir::kNoTensor) continue;
      const ir::Tensor& tensor = graph.tensor(read.tensor);
      InputRows& in = inputs[bg.buffer_of_tensor[static_cast<size_t>(read.tensor)]];
      in.by_rows = in.by_rows && read.axis == 1 && !read.broadcast && is_row_tensor(tensor);
      if (!in.by_rows) continue;
      in.rows = tensor.shape[1];
      in.row_bytes = tensor.size_bytes() / in.rows;
      in.reads.push_back({b, &made->end, read.window});
    }
  }
  // The outputs it hands on, by buffer, with their producer's body index.
  struct OutputRows {
    int buffer = -1;
    size_t body_index = 0;
    const TensorRows* rows = nullptr;
  };
  std::vector<OutputRows> outputs;
  for (const TensorRows& t : geometry.tensors) {
    if (t.holding != RowHolding::kWhole || t.producer < 0 || !is_row_tensor(graph.tensor(t.tensor))) continue;
    const auto at = std::find(scheme.operators.begin(), scheme.operators.end(), t.producer);
    outputs.push_back({bg.buffer_of_tensor[static_cast<size_t>(t.tensor)],
                       static_cast<size_t>(at - scheme.operators.begin()), &t});
  }

  const size_t body = axes->size();
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  for (const auto& [input, in] : inputs) {
    if (!in.by_rows || input < 0) continue;
    for (const OutputRows& out : outputs) {
      if (out.buffer == input) continue;
      // Backward over the calls: the least input byte read at or after each
      // write (a read in the writing call itself included).
      int64_t first_read_after = kNone;
      std::optional<int64_t> limit;
      for (size_t i = static_cast<size_t>(geometry.iterations); i-- > 0;) {
        for (size_t p = body; p-- > 0;) {
          for (const InputRead& r : in.reads) {
            if (r.body_index != p) continue;
            const std::vector<int64_t>& end = *r.reader_end;
            const ir::Range rows = ir::input_range(r.window, {i == 0 ? 0 : end[i - 1], end[i]}, in.rows);
            if (rows.end > rows.begin) first_read_after = std::min(first_read_after, rows.begin * in.row_bytes);
          }
          if (out.body_index != p || first_read_after == kNone) continue;
          const std::vector<int64_t>& end = out.rows->end;
          if (end[i] <= (i == 0 ? 0 : end[i - 1])) continue;
          const int64_t bound = first_read_after - end[i] * out.rows->row_bytes;
          limit = limit ? std::min(*limit, bound) : bound;
        }
      }
      if (!limit) continue;
      const int64_t in_bytes = bg.buffers[static_cast<size_t>(input)].bytes;
      const int64_t out_bytes = bg.buffers[static_cast<size_t>(out.buffer)].bytes;
      const int64_t offset = std::min<int64_t>(0, floor_to(*limit, alignment));
      const int64_t shared = std::max<int64_t>(0, std::min(in_bytes, offset + out_bytes) - std::max<int64_t>(0, offset));
      if (shared > 0) pairs.push_back({input, out.buffer, *limit, shared});
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const RowLoopOverlapPair& a, const RowLoopOverlapPair& b) {
    return std::tie(b.shared_bytes, a.input_buffer, a.output_buffer) <
           std::tie(a.shared_bytes, b.input_buffer, b.output_buffer);
  });
  return pairs;
}

}  // namespace tinyfit::partition
