#include "partition/row_geometry.h"

#include <algorithm>
#include <limits>
#include <map>

#include "ir/op_decl.h"
#include "partition/order_loop_body.h"
#include "support/choose_flags_greedily.h"

namespace tinyfit::partition {
namespace {

// One read, inside the loop, of a tensor the loop makes.
struct RowReader {
  size_t body_index = 0;     // position of the reading operator in the body
  ir::TensorId output;       // the reader's (first) output: its rows drive the read
  ir::Window window;
};

tl::unexpected<Diag> reject_geometry(const std::string& why) { return fail(why, ExitCode::kInternal); }

}  // namespace

const TensorRows* RowGeometry::find(ir::TensorId tensor) const {
  for (const TensorRows& t : tensors) {
    if (t.tensor == tensor) return &t;
  }
  return nullptr;
}

int find_sink_axis(PartitionAxis axis, const ir::Tensor& sink) {
  const int rank = static_cast<int>(sink.shape.size());
  switch (axis) {
    case PartitionAxis::kRows: return rank == 4 ? 1 : -1;
    case PartitionAxis::kTokens: return rank == 2 || rank == 3 ? rank - 2 : -1;
    case PartitionAxis::kChannels: return -1;
  }
  return -1;
}

namespace {

tl::unexpected<Diag> fail_axes(const ir::Node& node, const std::string& problem) {
  return fail_at_node(node.name, std::string(ir::op_type_name(node.op)),
                      "no loop over rows or tokens through it: " + problem, ExitCode::kBadCommandLine);
}

bool reduces(const ir::AxisMap& map, int input_index, int input_axis) {
  return std::any_of(map.reduced.begin(), map.reduced.end(), [&](const ir::AxisMap::Reduced& r) {
    return r.input_index == input_index && r.input_axis == input_axis;
  });
}

// The link of output axis `axis` to an axis of input `k` that a loop can
// follow (an identity or a window, not reduced), or nullptr.
const ir::AxisLink* find_walk_link(const ir::AxisMap& map, int axis, int k) {
  for (const ir::AxisLink& link : map.links) {
    if (link.output_axis != axis || link.input_index != k || reduces(map, k, link.input_axis)) continue;
    if (link.role == ir::AxisRole::kIdentity || link.role == ir::AxisRole::kWindow) return &link;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<LoopOperatorAxes>> find_loop_axes(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                                     const std::vector<int>& ops, int sink_axis, bool whole_reads) {
  TINYFIT_CHECK(!ops.empty()) << "a loop of no operators";
  const std::vector<ir::NodeId> producers = graph.compute_producers();
  std::vector<LoopOperatorAxes> result;
  std::map<ir::TensorId, size_t> made_at;
  for (int op : ops) {
    LoopOperatorAxes o;
    o.op = op;
    o.node = &graph.nodes.at(static_cast<size_t>(bg.operators.at(static_cast<size_t>(op)).node));
    if (o.node->outputs.size() != 1) {
      return fail_axes(*o.node, "it has " + std::to_string(o.node->outputs.size()) + " outputs");
    }
    o.output = o.node->outputs.front();
    made_at[o.output] = result.size();
    result.push_back(std::move(o));
  }
  if (sink_axis < 0) return fail_axes(*result.back().node, "its output has no rows or tokens to walk");
  result.back().output_axis = sink_axis;
  result.back().accumulates = !whole_reads && ends_in_accumulated_pool(graph, bg, ops);
  const ir::Shape& sink_shape = graph.tensor(result.back().output).shape;
  for (size_t j = result.size(); j-- > 0;) {
    LoopOperatorAxes& o = result[j];
    // No later operator reads it (a reader would have set its axis or
    // failed): another sink, when it walks as many rows as the last one.
    if (o.output_axis < 0) {
      const ir::Shape& shape = graph.tensor(o.output).shape;
      if (shape.size() != sink_shape.size() ||
          shape[static_cast<size_t>(sink_axis)] != sink_shape[static_cast<size_t>(sink_axis)]) {
        return fail_axes(*o.node, "no later operator of the loop reads its output, and it has other " +
                                      std::string(whole_reads ? "tokens" : "rows") + " than the loop's sink");
      }
      o.output_axis = sink_axis;
    }
    if (!whole_reads && graph.tensor(o.output).shape.size() != 4) {
      return fail_axes(*o.node, "its output is not one NHWC tensor");
    }
    const ir::AxisMap map = ir::op_decl(o.node->op).map_axes(graph, *o.node);
    for (size_t k = 0; k < o.node->inputs.size(); ++k) {
      const ir::TensorId t = o.node->inputs[k];
      if (t == ir::kNoTensor || graph.tensor(t).is_constant) continue;
      LoopRead read;
      read.tensor = t;
      if (const ir::AxisLink* link = find_walk_link(map, o.output_axis, static_cast<int>(k))) {
        read.axis = link->input_axis;
        read.role = link->role;
        read.window = link->role == ir::AxisRole::kWindow ? link->window : ir::Window{};
        read.broadcast = link->broadcast || graph.tensor(t).shape[static_cast<size_t>(link->input_axis)] == 1;
      }
      if (o.accumulates) {  // its window is the whole input: read one row per walked row instead
        read.role = ir::AxisRole::kIdentity;
        read.window = {};
        read.broadcast = false;
      }
      if (!whole_reads && (read.axis < 0 || graph.tensor(t).shape.size() != 4)) {
        return fail_axes(*o.node, "its output rows do not map to rows of input '" + graph.tensor(t).name + "'");
      }
      // Through Reshapes (aliases) back to the tensor that owns the buffer.
      ir::TensorId source = t;
      int source_axis = read.axis;
      while (!made_at.count(source)) {
        const ir::NodeId producer = producers[static_cast<size_t>(source)];
        if (producer < 0) break;
        const ir::Node& alias = graph.nodes[static_cast<size_t>(producer)];
        if (!ir::op_decl(alias.op).is_alias) break;
        const ir::AxisMap alias_map = ir::op_decl(alias.op).map_axes(graph, alias);
        const ir::AxisLink* link = source_axis < 0 ? nullptr : find_walk_link(alias_map, source_axis, 0);
        source_axis = link == nullptr ? -1 : link->input_axis;
        source = alias.inputs.front();
      }
      if (made_at.count(source)) {
        if (made_at.at(source) >= j) return fail_axes(*o.node, "it reads a tensor the loop makes later");
        if (source_axis < 0) {
          return fail_axes(*o.node, "it reads '" + graph.tensor(t).name + "', made in the loop, whole");
        }
        LoopOperatorAxes& producer_axes = result[made_at.at(source)];
        if (producer_axes.output_axis >= 0 && producer_axes.output_axis != source_axis) {
          return fail_axes(*o.node, "its readers walk two axes of '" + graph.tensor(source).name + "'");
        }
        producer_axes.output_axis = source_axis;
        read.source = source;
        read.source_axis = source_axis;
      }
      o.reads.push_back(read);
    }
  }
  return result;
}

std::vector<int> select_loop_operators(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                       const std::vector<int>& ops, int sink_axis) {
  if (ops.empty() || sink_axis < 0) return {};
  const std::vector<ir::NodeId> producers = graph.compute_producers();
  std::map<ir::TensorId, size_t> made_at;
  std::vector<const ir::Node*> nodes;
  for (int op : ops) {
    const ir::Node& node = graph.nodes.at(static_cast<size_t>(bg.operators.at(static_cast<size_t>(op)).node));
    for (ir::TensorId t : node.outputs) made_at[t] = nodes.size();
    nodes.push_back(&node);
  }
  std::vector<int> axis(ops.size(), -1);  // walked output axis of each chosen operator
  axis.back() = sink_axis;
  for (size_t j = ops.size(); j-- > 0;) {
    if (axis[j] < 0) continue;
    const ir::Node& node = *nodes[j];
    const ir::AxisMap map = ir::op_decl(node.op).map_axes(graph, node);
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const ir::TensorId t = node.inputs[k];
      if (t == ir::kNoTensor || graph.tensor(t).is_constant) continue;
      const ir::AxisLink* link = find_walk_link(map, axis[j], static_cast<int>(k));
      if (link == nullptr || link->broadcast) continue;
      ir::TensorId source = t;
      int source_axis = link->input_axis;
      while (!made_at.count(source) && source_axis >= 0) {
        const ir::NodeId producer = producers[static_cast<size_t>(source)];
        if (producer < 0 || !ir::op_decl(graph.nodes[static_cast<size_t>(producer)].op).is_alias) break;
        const ir::Node& alias = graph.nodes[static_cast<size_t>(producer)];
        const ir::AxisMap alias_map = ir::op_decl(alias.op).map_axes(graph, alias);
        const ir::AxisLink* through = find_walk_link(alias_map, source_axis, 0);
        source_axis = through == nullptr ? -1 : through->input_axis;
        source = alias.inputs.front();
      }
      const auto found = made_at.find(source);
      if (found != made_at.end() && found->second < j && source_axis >= 0 && axis[found->second] < 0) {
        axis[found->second] = source_axis;
      }
    }
  }
  // Convex: no operator left out both depends on a chosen one and feeds one.
  std::vector<bool> depends(ops.size(), false);
  std::vector<int> chosen;
  for (size_t j = 0; j < ops.size(); ++j) {
    for (int b : bg.operators[static_cast<size_t>(ops[j])].inputs) {
      const int maker = bg.buffers[static_cast<size_t>(b)].producer;
      const auto at = std::lower_bound(ops.begin(), ops.end(), maker);
      if (at == ops.end() || *at != maker) continue;
      const auto i = static_cast<size_t>(at - ops.begin());
      if (axis[i] >= 0 || depends[i]) {
        if (axis[j] >= 0 && axis[i] < 0) return {};  // a chosen operator reads one left out that depends on the loop
        depends[j] = true;
      }
    }
    if (axis[j] >= 0) chosen.push_back(ops[j]);
  }
  return chosen;
}

Result<RowGeometry> compute_row_geometry(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                         const PartitionScheme& scheme) {
  TINYFIT_CHECK(scheme.axis != PartitionAxis::kChannels && scheme.tile >= 1 && scheme.extent >= 1)
      << "row geometry of a " << partition_axis_name(scheme.axis) << " scheme";
  RowGeometry inputs_only;
  inputs_only.extent = scheme.extent;
  inputs_only.tile = scheme.tile;

  const ir::Node& last_node =
      graph.nodes[static_cast<size_t>(bg.operators[static_cast<size_t>(scheme.operators.back())].node)];
  const int sink_axis = find_sink_axis(scheme.axis, graph.output_tensor(last_node, 0));
  Result<std::vector<LoopOperatorAxes>> found_axes =
      find_loop_axes(graph, bg, scheme.operators, sink_axis, scheme.axis == PartitionAxis::kTokens);
  if (!found_axes) return reject_geometry(found_axes.error().message);
  const std::vector<LoopOperatorAxes>& axes = *found_axes;
  // A global pool at the end folds, part by part, the rows its input's
  // producer computes; its output holds no rows.
  const ir::TensorId accumulated = axes.back().accumulates ? axes.back().output : ir::kNoTensor;

  // The body: operators in order, their nodes, and what each makes.
  std::vector<const ir::Node*> body;
  std::map<ir::TensorId, size_t> made_at;  // tensor -> body index of its producer
  std::map<ir::TensorId, int> axis_of;     // walked axis of every tensor the loop makes or reads by rows
  for (const LoopOperatorAxes& o : axes) {
    made_at[o.output] = body.size();
    axis_of[o.output] = o.output_axis;
    body.push_back(o.node);
  }
  auto rows_of = [&](ir::TensorId t) {
    if (t == accumulated) return graph.input_tensor(last_node, 0).shape[1];
    const auto found = axis_of.find(t);
    return found == axis_of.end() || found->second < 0 ? 1 : graph.tensor(t).shape[static_cast<size_t>(found->second)];
  };

  // Inputs of the loop are held whole; every read of a tensor made inside is
  // noted for the backward pass.
  std::map<ir::TensorId, std::vector<RowReader>> readers;
  std::vector<ir::TensorId> inputs;
  for (size_t b = 0; b < body.size(); ++b) {
    for (const LoopRead& read : axes[b].reads) {
      if (read.source != ir::kNoTensor) {
        readers[read.source].push_back({b, body[b]->outputs.front(), read.broadcast ? ir::Window{} : read.window});
      } else {
        inputs.push_back(read.tensor);
        if (read.axis >= 0) axis_of.emplace(read.tensor, read.axis);
      }
    }
  }
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  for (ir::TensorId t : inputs) {
    TensorRows rows;
    rows.tensor = t;
    rows.rows = rows.rows_held = rows_of(t);
    rows.row_bytes = graph.tensor(t).size_bytes() / rows.rows;
    inputs_only.tensors.push_back(std::move(rows));
  }

  // The loop may start `lag` steps early, its sink idle while the
  // producers fill their buffers (plan/lower_row_loop.h): then no iteration
  // computes a producer's whole lead at once.
  auto lay_out = [&](int64_t lag) -> Result<RowGeometry> {
    RowGeometry geometry = inputs_only;
    geometry.lag = lag;
    geometry.iterations = (geometry.extent + lag + geometry.tile - 1) / geometry.tile;
    const auto iterations = static_cast<size_t>(geometry.iterations);

    // Backward over the body: how far each tensor must be complete. While a
    // reader has no row yet, its window is extended below row 0 (the
    // lowering's affine bounds): its producers fill their buffers during the
    // lag instead of all at once when the sink starts.
    std::map<ir::TensorId, std::vector<int64_t>> end_of, reach_of;
    for (size_t b = body.size(); b-- > 0;) {
      for (ir::TensorId t : body[b]->outputs) {
        const int64_t rows = rows_of(t);
        std::vector<int64_t> end(iterations, 0);
        std::vector<int64_t> reach(iterations, std::numeric_limits<int64_t>::min());
        const auto found = readers.find(t);
        if (found == readers.end()) {
          // A sink (find_loop_axes: as many rows as the last one): the
          // loop's chunk itself.
          for (size_t i = 0; i < iterations; ++i) reach[i] = (static_cast<int64_t>(i) + 1) * geometry.tile - lag;
        } else {
          for (const RowReader& r : found->second) {
            const std::vector<int64_t>& reader_end = end_of.at(r.output);
            const std::vector<int64_t>& reader_reach = reach_of.at(r.output);
            for (size_t i = 0; i < iterations; ++i) {
              const int64_t last = reader_end[i] > 0 ? reader_end[i] : reader_reach[i];
              reach[i] = std::max(reach[i], (last - 1) * r.window.stride + (r.window.kernel - 1) * r.window.dilation + 1 -
                                                r.window.pad_before);
            }
          }
        }
        for (size_t i = 0; i < iterations; ++i) end[i] = std::clamp<int64_t>(reach[i], 0, rows);
        end.back() = rows;  // every row once, read or not
        for (size_t i = 1; i < iterations; ++i) end[i] = std::max(end[i], end[i - 1]);
        end_of[t] = std::move(end);
        reach_of[t] = std::move(reach);
      }
    }

    // An eager operator computes every row its inputs made in the loop hold
    // (at least what its readers need): when a tensor's readers sit at very
    // different depths, the shallow reader running ahead lets the tensor drop
    // the rows between them, and its own (maybe smaller) output keeps them.
    auto raise_ends = [&](const std::vector<bool>& eager) {
      std::map<ir::TensorId, std::vector<int64_t>> ends = end_of;
      for (size_t b = 0; b < body.size(); ++b) {
        if (!eager[b]) continue;
        const ir::TensorId t = body[b]->outputs.front();
        const int64_t rows = rows_of(t);
        std::vector<int64_t>& end = ends.at(t);
        std::vector<int64_t> allowed(iterations, rows);
        bool bounded = false;
        for (const LoopRead& read : axes[b].reads) {
          if (read.source == ir::kNoTensor) continue;
          bounded = true;
          const ir::Window window = read.broadcast ? ir::Window{} : read.window;
          const int64_t source_rows = rows_of(read.source);
          const std::vector<int64_t>& source_end = ends.at(read.source);
          for (size_t i = 0; i < iterations; ++i) {
            if (source_end[i] >= source_rows) continue;
            // The most rows whose windows end by source_end[i].
            int64_t r = std::clamp<int64_t>(
                (source_end[i] + window.pad_before - (window.kernel - 1) * window.dilation - 1) / window.stride + 1, 0,
                rows);
            while (r > 0 && ir::input_range(window, {0, r}, source_rows).end > source_end[i]) --r;
            while (r < rows && ir::input_range(window, {0, r + 1}, source_rows).end <= source_end[i]) ++r;
            allowed[i] = std::min(allowed[i], r);
          }
        }
        if (!bounded) continue;
        for (size_t i = 0; i < iterations; ++i) {
          end[i] = std::max({end[i], allowed[i], i == 0 ? int64_t{0} : end[i - 1]});
        }
      }
      return ends;
    };

    // What each made tensor's buffer holds with `ends`, the copies that keep
    // it, and the partial buffers' peak.
    auto hold = [&](const std::map<ir::TensorId, std::vector<int64_t>>& ends) {
      RowGeometry held = geometry;
      auto is_output = [&scheme](ir::TensorId t) {
        return std::binary_search(scheme.outputs.begin(), scheme.outputs.end(), t);
      };
      for (size_t b = 0; b < body.size(); ++b) {
        for (ir::TensorId t : body[b]->outputs) {
          const ir::Tensor& tensor = graph.tensor(t);
          TensorRows rows;
          rows.tensor = t;
          rows.producer = scheme.operators[b];
          rows.rows = rows_of(t);
          rows.row_bytes = tensor.size_bytes() / rows.rows;
          rows.end = ends.at(t);
          rows.base.assign(iterations, 0);
          if (t == accumulated) {
            rows.holding = RowHolding::kAccumulated;
            rows.row_bytes = 0;
            held.carried_bytes += tensor.shape[3] * static_cast<int64_t>(sizeof(int32_t));
            held.tensors.push_back(std::move(rows));
            continue;
          }
          if (is_output(t)) {
            rows.holding = RowHolding::kWhole;
            rows.rows_held = rows.rows;
            held.tensors.push_back(std::move(rows));
            continue;
          }
          bool keeps_rows = false;
          const std::vector<RowReader>& reads = readers.at(t);
          for (size_t i = 0; i < iterations; ++i) {
            const int64_t made_before = i == 0 ? 0 : rows.end[i - 1];
            int64_t need = rows.rows;
            for (const RowReader& r : reads) {
              const std::vector<int64_t>& reader_end = ends.at(r.output);
              const int64_t reader_rows = rows_of(r.output);
              const int64_t next = i == 0 ? 0 : reader_end[i - 1];
              if (next < reader_rows) need = std::min(need, ir::input_range(r.window, {next, reader_rows}, rows.rows).begin);
            }
            rows.base[i] = std::min(need, made_before);
            rows.rows_held = std::max(rows.rows_held, rows.end[i] - rows.base[i]);
            const int64_t kept = made_before - rows.base[i];
            if (kept > 0) keeps_rows = true;
            if (kept > 0 && i > 0 && rows.base[i] != rows.base[i - 1]) {
              ++held.copy_calls;
              held.copied_bytes += kept * rows.row_bytes;
            }
          }
          rows.holding = keeps_rows ? RowHolding::kCarried : RowHolding::kPartial;
          if (rows.holding == RowHolding::kCarried) held.carried_bytes += rows.rows_held * rows.row_bytes;
          held.tensors.push_back(std::move(rows));
        }
      }

      // Partial buffers live from their producer to their last reader in the
      // body; a call's workspace at its own position.
      std::vector<int64_t> live(body.size(), 0);
      for (size_t b = 0; b < body.size(); ++b) {
        live[b] += bg.operators[static_cast<size_t>(scheme.operators[b])].workspace_bytes;
      }
      for (const TensorRows& t : held.tensors) {
        if (t.holding != RowHolding::kPartial) continue;
        const size_t first = made_at.at(t.tensor);
        size_t last = first;
        for (const RowReader& r : readers.at(t.tensor)) last = std::max(last, r.body_index);
        for (size_t b = first; b <= last; ++b) live[b] += t.rows_held * t.row_bytes;
      }
      held.peak_partial_bytes = *std::max_element(live.begin(), live.end());
      return held;
    };

    // The eager operators that keep the fewest bytes, chosen as the lowering
    // chooses them.
    const Result<FlagChoice> eager =
        choose_flags_greedily(body.size(), [&](const std::vector<bool>& flags) -> Result<int64_t> {
          return hold(raise_ends(flags)).internal_bytes();
        });
    if (!eager) return tl::unexpected(eager.error());
    const std::vector<bool>& best_eager = eager->flags;
    end_of = raise_ends(best_eager);
    geometry = hold(end_of);
    // The bands live at once in the body's order the lowering will run.
    const LoopBodyOrder body_order = order_loop_body(graph, bg, scheme.operators, geometry);
    if (body_order.ops != scheme.operators) geometry.peak_partial_bytes = body_order.peak_partial_bytes;

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
    return geometry;
  };
  TINYFIT_ASSIGN_OR_RETURN(RowGeometry at_once, lay_out(0));
  // The lag that spreads the largest lead (in sink rows, as the lowering
  // measures it) over the steps before the sink's first row.
  int64_t lag = 0;
  for (const TensorRows& t : at_once.tensors) {
    if (t.end.empty() || !readers.count(t.tensor)) continue;  // an input, or a sink
    const int64_t scale = std::max<int64_t>(1, t.rows / inputs_only.extent);
    lag = std::max(lag, (t.end.front() + scale - 1) / scale - inputs_only.tile);
  }
  if (lag == 0) return at_once;
  TINYFIT_ASSIGN_OR_RETURN(RowGeometry lagged, lay_out(lag));
  return lagged.internal_bytes() < at_once.internal_bytes() ? lagged : at_once;
}

}  // namespace tinyfit::partition
