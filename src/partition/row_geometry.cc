#include "partition/row_geometry.h"

#include <algorithm>
#include <map>

#include "ir/op_decl.h"

namespace tinyfit::partition {
namespace {

// One read, inside the loop, of a tensor the loop makes.
struct RowReader {
  size_t body_index = 0;     // position of the reading operator in the body
  ir::TensorId output;       // the reader's (first) output: its rows drive the read
  ir::Window window;
};

tl::unexpected<Diag> reject(const std::string& why) { return fail(why, ExitCode::kInternal); }

int64_t count_row_bytes(const ir::Tensor& tensor) {
  return tensor.shape.size() >= 2 && tensor.shape[1] > 0 ? tensor.size_bytes() / tensor.shape[1] : tensor.size_bytes();
}

}  // namespace

const TensorRows* RowGeometry::find(ir::TensorId tensor) const {
  for (const TensorRows& t : tensors) {
    if (t.tensor == tensor) return &t;
  }
  return nullptr;
}

std::optional<ir::Window> find_row_window(const ir::Graph& graph, const ir::Node& node, size_t input_index) {
  const ir::Tensor& input = graph.input_tensor(node, input_index);
  if (input.shape.size() < 2 || input.shape[1] == 1) return ir::Window{};  // no rows to follow: one row, read whole
  const ir::AxisMap map = ir::op_decl(node.op).map_axes(graph, node);
  for (const ir::AxisLink& link : map.links) {
    if (link.output_axis != 1 || link.input_index != static_cast<int>(input_index) || link.input_axis != 1) continue;
    if (link.broadcast || link.role == ir::AxisRole::kIdentity) return ir::Window{};
    if (link.role == ir::AxisRole::kWindow) return link.window;
  }
  return std::nullopt;
}

Result<RowGeometry> compute_row_geometry(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                         const PartitionScheme& scheme) {
  TINYFIT_CHECK(scheme.axis == PartitionAxis::kRows && scheme.tile >= 1 && scheme.extent >= 1)
      << "row geometry of a " << partition_axis_name(scheme.axis) << " scheme";
  RowGeometry geometry;
  geometry.extent = scheme.extent;
  geometry.tile = scheme.tile;
  geometry.iterations = scheme.count_parts();
  const auto iterations = static_cast<size_t>(geometry.iterations);

  // The body: operators in order, their nodes, and what each makes.
  std::vector<const ir::Node*> body;
  std::map<ir::TensorId, size_t> made_at;  // tensor -> body index of its producer
  for (int op : scheme.operators) {
    const ir::Node& node = graph.nodes[static_cast<size_t>(bg.operators[static_cast<size_t>(op)].node)];
    for (ir::TensorId t : node.outputs) {
      if (graph.tensor(t).shape.size() < 3) return reject("'" + node.name + "' makes a tensor without rows");
      made_at[t] = body.size();
    }
    body.push_back(&node);
  }

  // Inputs of the loop are held whole; every read of a tensor made inside is
  // noted for the backward pass.
  std::map<ir::TensorId, std::vector<RowReader>> readers;
  std::vector<ir::TensorId> inputs;
  for (size_t b = 0; b < body.size(); ++b) {
    const ir::Node& node = *body[b];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ir::TensorId t = node.inputs[i];
      if (t == ir::kNoTensor || graph.tensor(t).is_constant) continue;
      const std::optional<ir::Window> window = find_row_window(graph, node, i);
      if (!window) return reject("'" + node.name + "' does not map its rows to the rows of input " + std::to_string(i));
      if (made_at.count(t)) {
        readers[t].push_back({b, node.outputs.front(), *window});
      } else {
        inputs.push_back(t);
      }
    }
  }
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  for (ir::TensorId t : inputs) {
    const ir::Tensor& tensor = graph.tensor(t);
    TensorRows rows;
    rows.tensor = t;
    rows.row_bytes = count_row_bytes(tensor);
    rows.rows = rows.rows_held = tensor.shape.size() >= 2 ? tensor.shape[1] : 1;
    geometry.tensors.push_back(std::move(rows));
  }

  // Backward over the body: how far each tensor must be complete.
  std::map<ir::TensorId, std::vector<int64_t>> end_of;
  for (size_t b = body.size(); b-- > 0;) {
    for (ir::TensorId t : body[b]->outputs) {
      const int64_t rows = graph.tensor(t).shape[1];
      std::vector<int64_t> end(iterations, 0);
      const auto found = readers.find(t);
      if (found == readers.end()) {
        // The sink: the loop's chunk itself.
        if (b + 1 != body.size()) {
          return reject("'" + graph.tensor(t).name + "' is read by no operator of the loop and is not its last output");
        }
        for (size_t i = 0; i < iterations; ++i) {
          end[i] = std::min((static_cast<int64_t>(i) + 1) * geometry.tile, geometry.extent);
        }
      } else {
        for (const RowReader& r : found->second) {
          const std::vector<int64_t>& reader_end = end_of.at(r.output);
          for (size_t i = 0; i < iterations; ++i) {
            end[i] = std::max(end[i], ir::input_range(r.window, {0, reader_end[i]}, rows).end);
          }
        }
      }
      end.back() = rows;  // every row once, read or not
      for (size_t i = 1; i < iterations; ++i) end[i] = std::max(end[i], end[i - 1]);
      end_of[t] = std::move(end);
    }
  }

  // Forward: what each made tensor's buffer holds, and the copies that keep it.
  auto is_output = [&scheme](ir::TensorId t) {
    return std::binary_search(scheme.outputs.begin(), scheme.outputs.end(), t);
  };
  for (size_t b = 0; b < body.size(); ++b) {
    for (ir::TensorId t : body[b]->outputs) {
      const ir::Tensor& tensor = graph.tensor(t);
      TensorRows rows;
      rows.tensor = t;
      rows.producer = scheme.operators[b];
      rows.row_bytes = count_row_bytes(tensor);
      rows.rows = tensor.shape[1];
      rows.end = end_of.at(t);
      rows.base.assign(iterations, 0);
      if (is_output(t)) {
        rows.holding = RowHolding::kWhole;
        rows.rows_held = rows.rows;
        geometry.tensors.push_back(std::move(rows));
        continue;
      }
      bool keeps_rows = false;
      const std::vector<RowReader>& reads = readers.at(t);
      for (size_t i = 0; i < iterations; ++i) {
        const int64_t made_before = i == 0 ? 0 : rows.end[i - 1];
        int64_t need = rows.rows;
        for (const RowReader& r : reads) {
          const std::vector<int64_t>& reader_end = end_of.at(r.output);
          const int64_t reader_rows = graph.tensor(r.output).shape[1];
          const int64_t next = i == 0 ? 0 : reader_end[i - 1];
          if (next < reader_rows) need = std::min(need, ir::input_range(r.window, {next, reader_rows}, rows.rows).begin);
        }
        rows.base[i] = std::min(need, made_before);
        rows.rows_held = std::max(rows.rows_held, rows.end[i] - rows.base[i]);
        const int64_t kept = made_before - rows.base[i];
        if (kept > 0) keeps_rows = true;
        if (kept > 0 && i > 0 && rows.base[i] != rows.base[i - 1]) {
          ++geometry.copy_calls;
          geometry.copied_bytes += kept * rows.row_bytes;
        }
      }
      rows.holding = keeps_rows ? RowHolding::kCarried : RowHolding::kPartial;
      if (rows.holding == RowHolding::kCarried) geometry.carried_bytes += rows.rows_held * rows.row_bytes;
      geometry.tensors.push_back(std::move(rows));
    }
  }

  // Every read lies inside its buffer's rows of that iteration.
  for (size_t b = 0; b < body.size(); ++b) {
    const std::vector<int64_t>& out_end = end_of.at(body[b]->outputs.front());
    for (const auto& [t, reads] : readers) {
      const TensorRows* held = geometry.find(t);
      for (const RowReader& r : reads) {
        if (r.body_index != b) continue;
        for (size_t i = 0; i < iterations; ++i) {
          const ir::Range read = ir::input_range(r.window, {i == 0 ? 0 : out_end[i - 1], out_end[i]}, held->rows);
          TINYFIT_CHECK(read.size() <= 0 || (read.begin >= held->base[i] && read.end <= held->end[i]))
              << "row geometry: '" << body[b]->name << "' reads rows [" << read.begin << ", " << read.end
              << ") of '" << graph.tensor(t).name << "' holding [" << held->base[i] << ", " << held->end[i]
              << ") in iteration " << i;
        }
      }
    }
  }

  // Partial buffers live from their producer to their last reader in the
  // body; a call's workspace at its own position.
  std::vector<int64_t> live(body.size(), 0);
  for (size_t b = 0; b < body.size(); ++b) {
    live[b] += bg.operators[static_cast<size_t>(scheme.operators[b])].workspace_bytes;
  }
  for (const TensorRows& t : geometry.tensors) {
    if (t.holding != RowHolding::kPartial) continue;
    const size_t first = made_at.at(t.tensor);
    size_t last = first;
    for (const RowReader& r : readers.at(t.tensor)) last = std::max(last, r.body_index);
    for (size_t b = first; b <= last; ++b) live[b] += t.rows_held * t.row_bytes;
  }
  geometry.peak_partial_bytes = *std::max_element(live.begin(), live.end());
  return geometry;
}

}  // namespace tinyfit::partition
