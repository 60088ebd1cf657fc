#include "plan/lower_row_loop.h"

#include <algorithm>
#include <optional>
#include <string>

#include "ir/op_decl.h"
#include "partition/row_geometry.h"
#include "plan/lowering_buffers.h"
#include "support/choose_flags_greedily.h"

namespace tinyfit::plan {
namespace {

// How one activation input of a loop operator follows the loop: the rows its
// window (or the same rows) of the operator's output rows read.
struct RowInput {
  ir::TensorId tensor = ir::kNoTensor;  // as the node names it (maybe a reshape of a loop tensor)
  int axis = -1;                        // its walked axis; -1: read whole in every iteration
  ir::AxisRole role = ir::AxisRole::kIdentity;  // kWindow or kIdentity
  ir::Window window;
  bool broadcast = false;  // one row, read whole by every output row
  ir::TensorId source = ir::kNoTensor;  // the loop tensor whose buffer it is, or kNoTensor
};

// One operator of a row loop, in order.
struct LoopOperator {
  int op = -1;
  const ir::Node* node = nullptr;
  ir::TensorId output = ir::kNoTensor;
  int axis = -1;                 // the walked axis of its output
  std::vector<RowInput> inputs;  // one per activation input, in node input order
  // The rows of its output computed by the end of the iteration, of the
  // chunk's end; the same bound of the chunk's begin ends what earlier
  // iterations computed.
  Bound rows;
  // Whether only its rows live, in a buffer of the loop (else it is whole).
  // Then:
  bool in_rows = false;
  Bound keep;               // the first row still read in the iteration (of the chunk's begin)
  int64_t held_rows = 0;    // the buffer's height
  bool needs_copy = false;  // some iteration keeps rows of the last one: kCarried, else kPartial
  // The buffer holds its rows from its first kept row, keep(b), instead of
  // ending at its last row, and the copy runs after the iteration's reads
  // (make_kept_rows_copy): when keep moves once every few steps (a divisor),
  // the rows move only then.
  bool from_keep = false;
  BufferId buffer = -1;     // the plan buffer
  // A global pool ending the loop (partition::accumulates_rows): it reads its
  // input's rows one to one and folds them into `buffer`, an accumulator; a
  // kFinalize call after the loop writes its output.
  bool accumulates = false;
  int64_t walked_rows = 0;  // its input's rows, which the loop walks
};

tl::unexpected<Diag> fail_loop(const ir::Node& node, const std::string& problem) {
  return fail_at_node(node.name, std::string(ir::op_type_name(node.op)), "no row loop through it: " + problem,
                      ExitCode::kBadCommandLine);
}

// Bytes of `rows` indices of the tensor's walked `axis`.
int64_t count_rows_bytes(const ir::Tensor& tensor, int axis, int64_t rows) {
  return tensor.size_bytes() / tensor.shape[static_cast<size_t>(axis)] * rows;
}

// The tensor's shape with `rows` indices on `axis`.
ir::Shape with_rows(ir::Shape shape, int axis, int64_t rows) {
  shape[static_cast<size_t>(axis)] = rows;
  return shape;
}

Bound taken_at(Bound bound, BoundOf of) {
  bound.of = of;
  return bound;
}

// A bound without divisor no smaller (larger) than `bound` for every x >= 0:
// scale * floor(x / d) lies in [scale / d * x - scale * (d - 1) / d, scale / d * x].
Bound undivided_above(Bound bound) {
  bound.scale = (bound.scale + bound.divisor - 1) / bound.divisor;
  bound.divisor = 1;
  return bound;
}
Bound undivided_below(Bound bound) {
  const int64_t k = bound.scale / bound.divisor;
  bound.offset -= bound.scale % bound.divisor == 0 ? k * (bound.divisor - 1) : bound.scale;
  bound.scale = k;
  bound.divisor = 1;
  return bound;
}

// A bound no smaller (larger) than both, for every chunk: the larger (smaller)
// of each field, of the two without divisors when their divisors differ.
// Exact when the two differ only by a constant shift.
Bound bound_above(Bound a, Bound b) {
  if (a.divisor != b.divisor) {
    a = undivided_above(a);
    b = undivided_above(b);
  }
  return {a.of, std::max(a.scale, b.scale), std::max(a.offset, b.offset), std::max(a.low, b.low),
          std::max(a.high, b.high), a.divisor};
}
Bound bound_below(Bound a, Bound b) {
  if (a.divisor != b.divisor) {
    a = undivided_below(a);
    b = undivided_below(b);
  }
  return {a.of, std::min(a.scale, b.scale), std::min(a.offset, b.offset), std::min(a.low, b.low),
          std::min(a.high, b.high), a.divisor};
}

Bound shifted(const Bound& bound, int64_t by) { return compose_bound(bound, 1, by, bound.low + by, bound.high + by); }

// The input rows [first, last) `input` needs for output rows `rows` of its
// reader: its window's (MemoriaNova eq. 1) or the same ones.
BoundRange compose_input_rows(const RowInput& input, const Bound& rows, int64_t input_rows) {
  const Bound first = taken_at(rows, BoundOf::kChunkBegin), last = taken_at(rows, BoundOf::kChunkEnd);
  if (input.role == ir::AxisRole::kWindow) return compose_window(first, last, input.window, input_rows);
  return {first, last};
}

// The spec's operators in order, with the positions they occupy there.
Result<std::vector<int>> order_operators(const analysis::Order& order, const RowLoopSpec& spec) {
  std::vector<int> positions;
  for (int op : spec.ops) {
    const auto found = std::find(order.begin(), order.end(), op);
    if (found == order.end()) {
      return fail("row loop: operator " + std::to_string(op) + " is not in the order", ExitCode::kInternal);
    }
    positions.push_back(static_cast<int>(found - order.begin()));
  }
  std::sort(positions.begin(), positions.end());
  if (positions.empty() || positions.back() - positions.front() + 1 != static_cast<int>(positions.size())) {
    return fail("row loop: its operators are not consecutive in the order", ExitCode::kBadCommandLine);
  }
  std::vector<int> ops;
  for (int p : positions) ops.push_back(order[static_cast<size_t>(p)]);
  return ops;
}

class RowLoopLowering {
 public:
  RowLoopLowering(const ir::Graph& graph, const analysis::BufferGraph& bg)
      : graph_(graph), bg_(bg), buffers_(graph, bg, plan_) {}

  void lower_whole(int op_index) { plan_.steps.push_back(Step{buffers_.make_whole_call(op_index)}); }

  // `ops` in order.
  Status lower_loop(const std::vector<int>& ops, int64_t tile, LoopAxis axis, int64_t most_rate) {
    TINYFIT_ASSIGN_OR_RETURN(std::vector<LoopOperator> loop_ops, describe_operators(ops, axis));
    const int64_t extent = rows_of(loop_ops.back());
    if (tile < 1 || tile > extent) {
      return fail_loop(*loop_ops.back().node,
                       "a tile of " + std::to_string(tile) + " of " + std::to_string(extent) + " rows");
    }
    // Producers run ahead of their readers by the rows their windows reach
    // past them (an offset c in H(x) = a x + c). In the first iteration that
    // lead is computed all at once, so every loop buffer must hold it. The
    // loop may instead start `lag` steps early: the sink computes nothing
    // until the producers have filled their buffers, none computes more than
    // its a * tile rows per iteration, and each buffer holds its window only,
    // at lag / tile more iterations.
    //
    // Producers before a stride-2 window compute two rows per row of the
    // sink (a = 2), so their loop buffers hold two new rows at a time. The
    // loop may instead walk `rate` steps per row of the sink (extent rate *
    // rows + lag, tile steps per iteration): the sink computes row
    // floor(x / rate) (a Bound with a divisor), and each producer whose rows
    // grow by a multiple of rate per row of its reader advances a / rate rows
    // a step, computing each row as soon as one step's worth is due instead
    // of all of them at the step its reader needs them. The lowering keeps
    // the rate and the lag that need the fewest bytes of loop buffers (rate
    // 1 and no lag on a tie).
    int64_t most_rows = extent;
    for (const LoopOperator& lo : loop_ops) most_rows = std::max(most_rows, rows_of(lo));
    Loop loop;
    loop.name = std::string(loop_axis_name(axis)) + "-" + std::to_string(loops_++);
    loop.axis = axis;
    loop.tile = tile;
    std::optional<int64_t> fewest_bytes;
    std::vector<LoopOperator> chosen;
    for (int64_t rate = 1; rate <= std::min(most_rate, most_rows / extent); ++rate) {
      TINYFIT_RETURN_IF_ERROR(compose_rows(loop_ops, extent, 0, rate, std::vector<bool>(loop_ops.size(), false)));
      int64_t lag = 0;
      for (const LoopOperator& lo : loop_ops) {
        if (lo.rows.scale > 0 && lo.rows.offset > 0) {
          lag = std::max(lag, lo.rows.divisor * ((lo.rows.offset + lo.rows.scale - 1) / lo.rows.scale));
        }
      }
      lag = (lag + rate - 1) / rate * rate;  // whole rows of the sink: its bound stays floor(x / rate) - lag / rate
      for (int64_t steps_early : {int64_t{0}, lag}) {
        std::vector<LoopOperator> composed = loop_ops;
        Loop candidate = loop;
        candidate.extent = rate * extent + steps_early;
        TINYFIT_ASSIGN_OR_RETURN(const int64_t bytes,
                                 compose_fewest_rows(composed, candidate, extent, steps_early, rate));
        if (!fewest_bytes || bytes < *fewest_bytes) {
          fewest_bytes = bytes;
          chosen = std::move(composed);
          loop.extent = candidate.extent;
        }
        if (lag == 0) break;
      }
    }
    loop_ops = std::move(chosen);
    for (LoopOperator& lo : loop_ops) {
      if (lo.in_rows) make_loop_buffer(lo);
      if (lo.accumulates) make_accumulator(lo);
    }
    for (const LoopOperator& lo : loop_ops) {
      if (lo.needs_copy && !lo.from_keep) loop.body.push_back(Step{make_block_concat(lo)});
      KernelCall call;
      call.node = bg_.operators[static_cast<size_t>(lo.op)].node;
      for (const RowInput& input : lo.inputs) call.inputs.push_back(make_input_view(input, lo, loop_ops));
      if (lo.accumulates) {
        call.mode = CallMode::kAccumulate;
        call.outputs.push_back(accumulator_view(lo));
      } else {
        call.outputs.push_back(make_rows_view(lo.output, lo.axis, lo.rows, &lo));
        call.workspace = buffers_.add_workspace(bg_.operators[static_cast<size_t>(lo.op)]);
      }
      loop.body.push_back(Step{std::move(call)});
    }
    for (const LoopOperator& lo : loop_ops) {
      if (lo.needs_copy && lo.from_keep) loop.body.push_back(Step{make_kept_rows_copy(lo)});
    }
    plan_.steps.push_back(Step{std::move(loop)});
    if (const LoopOperator& last = loop_ops.back(); last.accumulates) {
      KernelCall finalize;
      finalize.node = bg_.operators[static_cast<size_t>(last.op)].node;
      finalize.mode = CallMode::kFinalize;
      finalize.inputs.push_back(accumulator_view(last));
      finalize.outputs.push_back(whole_view(last.output));
      plan_.steps.push_back(Step{std::move(finalize)});
    }
    return {};
  }

  Plan finish() {
    buffers_.add_graph_inputs_and_outputs();
    plan_.techniques.push_back("rows");
    return std::move(plan_);
  }

 private:
  Result<std::vector<LoopOperator>> describe_operators(const std::vector<int>& ops, LoopAxis axis) const {
    const ir::Node& sink = graph_.nodes.at(static_cast<size_t>(bg_.operators.at(static_cast<size_t>(ops.back())).node));
    if (sink.outputs.size() != 1) return fail_loop(sink, "it has " + std::to_string(sink.outputs.size()) + " outputs");
    const partition::PartitionAxis walked =
        axis == LoopAxis::kTokens ? partition::PartitionAxis::kTokens : partition::PartitionAxis::kRows;
    if (axis != LoopAxis::kRows && axis != LoopAxis::kTokens) {
      return fail_loop(sink, "a loop over " + std::string(loop_axis_name(axis)) + " is not a row loop");
    }
    TINYFIT_ASSIGN_OR_RETURN(
        const std::vector<partition::LoopOperatorAxes> axes,
        partition::find_loop_axes(graph_, bg_, ops, partition::find_sink_axis(walked, graph_.output_tensor(sink, 0)),
                                  axis == LoopAxis::kTokens));
    std::vector<LoopOperator> loop_ops;
    for (const partition::LoopOperatorAxes& o : axes) {
      LoopOperator lo;
      lo.op = o.op;
      lo.node = o.node;
      lo.output = o.output;
      lo.axis = o.output_axis;
      lo.accumulates = o.accumulates;
      if (lo.accumulates) lo.walked_rows = graph_.input_tensor(*lo.node, 0).shape[1];
      const int out_buffer = buffer_of(lo.output);
      for (const partition::LoopRead& read : o.reads) {
        if (buffer_of(read.tensor) == out_buffer) return fail_loop(*lo.node, "it runs in place");
        lo.inputs.push_back({read.tensor, read.axis, read.role, read.window, read.broadcast, read.source});
      }
      loop_ops.push_back(std::move(lo));
    }
    return loop_ops;
  }

  // The loop operator producing tensor t, or nullptr.
  static const LoopOperator* find(const std::vector<LoopOperator>& loop_ops, ir::TensorId t) {
    for (const LoopOperator& lo : loop_ops) {
      if (lo.output == t) return &lo;
    }
    return nullptr;
  }

  // The rows each operator computes by the end of an iteration: the sink's
  // chunk `lag` steps late at one row every `rate` steps (the loop walks rate
  // * extent + lag steps; lag a multiple of rate), then, from the last to
  // the first, what the readers in the loop need of each output by then
  // (their windows of their rows), without the divisor where that is a
  // whole number of rows a step. An `eager` operator then computes, in
  // order, every row its inputs made in the loop already allow (at least
  // what its readers need): a tensor whose readers sit at very different
  // depths need not keep the rows between them when the shallow reader runs
  // ahead, and the rows are kept on that reader's output instead. Decides
  // which outputs live only as rows in buffers of the loop and from which row
  // they keep them.
  Status compose_rows(std::vector<LoopOperator>& loop_ops, int64_t extent, int64_t lag, int64_t rate,
                      const std::vector<bool>& eager) const {
    loop_ops.back().rows = {BoundOf::kChunkEnd, 1, -lag / rate, 0, extent, rate};
    for (size_t j = loop_ops.size() - 1; j-- > 0;) {
      LoopOperator& lo = loop_ops[j];
      bool read = false;
      Bound need;
      for (size_t c = j + 1; c < loop_ops.size(); ++c) {
        for (const RowInput& input : loop_ops[c].inputs) {
          if (input.source != lo.output) continue;
          const Bound last = read_rows(input, loop_ops[c].rows, rows_of(lo)).last;
          need = read ? bound_above(need, last) : last;
          read = true;
        }
      }
      if (!read) {
        // Another sink (find_loop_axes: as many rows as the last one): the
        // loop's chunk, as the last one.
        lo.rows = loop_ops.back().rows;
        continue;
      }
      // Its own rows: what is needed, up to the tensor's end in the last
      // iteration; a / rate rows a step when that is a whole number.
      if (need.scale % need.divisor == 0) need = undivided_above(need);
      lo.rows = {BoundOf::kChunkEnd, need.scale, need.offset, 0, rows_of(lo), need.divisor};
    }
    for (size_t j = 0; j < loop_ops.size(); ++j) {
      if (eager[j]) raise_rows(loop_ops[j], loop_ops);
    }
    for (size_t j = 0; j + 1 < loop_ops.size(); ++j) {
      LoopOperator& lo = loop_ops[j];
      bool read = false, read_whole = false;
      Bound keep;
      for (size_t c = j + 1; c < loop_ops.size(); ++c) {
        for (const RowInput& input : loop_ops[c].inputs) {
          if (input.source != lo.output) continue;
          const Bound first = read_rows(input, loop_ops[c].rows, rows_of(lo)).first;
          keep = read ? bound_below(keep, first) : first;
          read = true;
          read_whole = read_whole || input.broadcast;
        }
      }
      const analysis::Buffer& buffer = bg_.buffers[static_cast<size_t>(buffer_of(lo.output))];
      bool only_loop_reads = !buffer.is_model_output && !read_whole;
      for (int consumer : buffer.consumers) {
        only_loop_reads = only_loop_reads && std::any_of(loop_ops.begin(), loop_ops.end(),
                                                         [&](const LoopOperator& o) { return o.op == consumer; });
      }
      // A reshape of it read in the loop keeps the walked axis
      // (find_loop_axes), so its rows are the same bytes; one read after the
      // loop makes the buffer's reader outside it.
      lo.in_rows = only_loop_reads && read;
      lo.keep = keep;
    }
    return {};
  }

  int64_t rows_of(const LoopOperator& lo) const {
    return lo.accumulates ? lo.walked_rows : graph_.tensor(lo.output).shape[static_cast<size_t>(lo.axis)];
  }

  // The rows [first, last) of its input a reader's `rows` read; a broadcast
  // row is read whole by every row: all of it at once.
  static BoundRange read_rows(const RowInput& input, const Bound& rows, int64_t input_rows) {
    if (input.broadcast) return {make_constant_bound(0), Bound{BoundOf::kChunkEnd, 0, input_rows, 0, input_rows}};
    return compose_input_rows(input, rows, input_rows);
  }

  // Raises lo.rows to every row its inputs made in the loop hold by then:
  // the largest offset whose windows those rows cover (one scale per tensor,
  // as the backward composition gives it). An operator that reads no such
  // input, or one through a window of another scale, is left as it is.
  static void raise_rows(LoopOperator& lo, const std::vector<LoopOperator>& loop_ops) {
    if (lo.rows.divisor != 1) return;
    bool bounded = false;
    int64_t offset = 0;
    for (const RowInput& input : lo.inputs) {
      const LoopOperator* producer = find(loop_ops, input.source);
      if (producer == nullptr || input.broadcast || input.axis < 0) continue;
      const int64_t stride = input.role == ir::AxisRole::kWindow ? input.window.stride : 1;
      const int64_t reach = input.role == ir::AxisRole::kWindow
                                ? (input.window.kernel - 1) * input.window.dilation + 1 - stride - input.window.pad_before
                                : 0;
      if (producer->rows.divisor != 1 || producer->rows.scale != stride * lo.rows.scale) return;
      // The largest o with stride * o + reach <= the producer's offset.
      const int64_t room = producer->rows.offset - reach;
      const int64_t allowed = room >= 0 ? room / stride : -((-room + stride - 1) / stride);
      offset = bounded ? std::min(offset, allowed) : allowed;
      bounded = true;
    }
    if (bounded && lo.rows.scale > 0) lo.rows.offset = std::max(lo.rows.offset, offset);
  }

  // Composes the rows for `lag` with the operators made eager that need the
  // fewest bytes of loop buffers (size_loop_buffers), chosen by
  // choose_flags_greedily as the search's row geometry chooses them. Returns
  // the bytes.
  Result<int64_t> compose_fewest_rows(std::vector<LoopOperator>& loop_ops, const Loop& loop, int64_t extent,
                                      int64_t lag, int64_t rate) const {
    TINYFIT_ASSIGN_OR_RETURN(const FlagChoice eager,
                             choose_flags_greedily(loop_ops.size(), [&](const std::vector<bool>& flags) -> Result<int64_t> {
                               TINYFIT_RETURN_IF_ERROR(compose_rows(loop_ops, extent, lag, rate, flags));
                               return size_loop_buffers(loop_ops, loop);
                             }));
    TINYFIT_RETURN_IF_ERROR(compose_rows(loop_ops, extent, lag, rate, eager.flags));
    size_loop_buffers(loop_ops, loop);
    return eager.cost;
  }

  // Each loop buffer's height: the most rows an iteration holds, from the
  // first row kept to the last row computed; and whether any iteration keeps
  // rows (else no copy is needed). Sets held_rows and needs_copy of every
  // output held in rows; returns their bytes.
  int64_t size_loop_buffers(std::vector<LoopOperator>& loop_ops, const Loop& loop) const {
    int64_t bytes = 0;
    for (LoopOperator& lo : loop_ops) {
      if (!lo.in_rows) continue;
      const Bound begin = taken_at(lo.rows, BoundOf::kChunkBegin);
      lo.held_rows = 0;
      lo.needs_copy = false;
      lo.from_keep = lo.keep.divisor > 1;
      for (int64_t i = 0; i < count_iterations(loop); ++i) {
        const ir::Range chunk = chunk_of_iteration(loop, i);
        const int64_t done = evaluate_bound(begin, chunk, loop.extent);
        const int64_t kept = std::min(evaluate_bound(lo.keep, chunk, loop.extent), done);
        lo.held_rows = std::max(lo.held_rows, evaluate_bound(lo.rows, chunk, loop.extent) - kept);
        lo.needs_copy = lo.needs_copy || kept < done;
        lo.from_keep = lo.from_keep && evaluate_bound(lo.keep, chunk, loop.extent) <= done;
      }
      bytes += count_rows_bytes(graph_.tensor(lo.output), lo.axis, lo.held_rows);
    }
    return bytes;
  }

  // The loop buffer of `lo`, as size_loop_buffers sized it: carried when
  // an iteration keeps rows of the last one, else partial (local to one
  // iteration, live only between its writer and its last reader).
  void make_loop_buffer(LoopOperator& lo) {
    const ir::Tensor& tensor = graph_.tensor(lo.output);
    PlanBuffer buffer;
    buffer.name = tensor.name + ":rows";
    buffer.role = lo.needs_copy ? BufferRole::kCarried : BufferRole::kPartial;
    buffer.dtype = tensor.dtype;
    buffer.bytes = count_rows_bytes(tensor, lo.axis, lo.held_rows);
    lo.buffer = buffers_.add(std::move(buffer));
  }

  // The int32 accumulator of a global pool ending the loop: one element per
  // channel, live over the loop and up to its kFinalize call.
  void make_accumulator(LoopOperator& lo) {
    const ir::Tensor& tensor = graph_.tensor(lo.output);
    PlanBuffer buffer;
    buffer.name = tensor.name + ":acc";
    buffer.role = BufferRole::kAccumulator;
    buffer.dtype = ir::DType::kI32;
    buffer.bytes = tensor.shape.back() * static_cast<int64_t>(sizeof(int32_t));
    lo.buffer = buffers_.add(std::move(buffer));
  }
  View accumulator_view(const LoopOperator& lo) const {
    return make_dense_view(lo.buffer, graph_.tensor(lo.output).shape);
  }

  // A view of `rows` of tensor t on its walked `axis`: a slice of its whole
  // buffer, or its rows in the loop buffer of `producer` (t is the
  // producer's output or a reshape of it that keeps the axis), which holds
  // them ending at its last row, H(e), at position held_rows
  // (docs/row_loops.md).
  View make_rows_view(ir::TensorId t, int axis, const BoundRange& rows, const LoopOperator* producer) {
    const ir::Tensor& tensor = graph_.tensor(t);
    Sweep sweep;
    sweep.axis = axis;
    sweep.first = rows.first;
    sweep.last = rows.last;
    if (producer == nullptr || !producer->in_rows) {
      View view = whole_view(t);
      sweep.base = make_constant_bound(0);
      view.sweeps.push_back(sweep);
      return view;
    }
    View view = make_dense_view(producer->buffer, with_rows(tensor.shape, axis, producer->held_rows));
    view.shape = tensor.shape;
    sweep.base = producer->from_keep ? producer->keep
                                     : shifted(taken_at(producer->rows, BoundOf::kChunkEnd), -producer->held_rows);
    view.sweeps.push_back(sweep);
    return view;
  }
  View make_rows_view(ir::TensorId t, int axis, const Bound& rows, const LoopOperator* producer) {
    return make_rows_view(t, axis, {taken_at(rows, BoundOf::kChunkBegin), taken_at(rows, BoundOf::kChunkEnd)},
                          producer);
  }

  View make_input_view(const RowInput& input, const LoopOperator& reader, const std::vector<LoopOperator>& loop_ops) {
    if (input.broadcast || input.axis < 0) return whole_view(input.tensor);
    const int64_t rows = graph_.tensor(input.tensor).shape[static_cast<size_t>(input.axis)];
    return make_rows_view(input.tensor, input.axis, compose_input_rows(input, reader.rows, rows),
                          find(loop_ops, input.source));
  }

  // BlockConcat (MOTES §4.4): the rows [keep, H(b)) that this iteration's
  // readers still need move from where the last iteration left them (ending
  // at H(b)) to where this iteration's rows end (at H(e)): toward the front.
  KernelCall make_block_concat(const LoopOperator& lo) {
    const Bound done = taken_at(lo.rows, BoundOf::kChunkBegin);
    View from = make_rows_view(lo.output, lo.axis, {lo.keep, done}, &lo);
    View to = from;
    from.sweeps[0].base = shifted(done, -lo.held_rows);
    KernelCall copy;
    copy.mode = CallMode::kCopy;
    copy.inputs = {from};
    copy.outputs = {to};
    return copy;
  }

  // A buffer laid out from keep(b) (LoopOperator::from_keep): after the
  // iteration's reads, the rows [keep(e), H(e)) the next iteration still
  // needs move to its front, where that iteration's base keep(e) puts them.
  // When keep(e) == keep(b) source and target coincide and the copy does
  // nothing (tf_x8_copy returns at once).
  KernelCall make_kept_rows_copy(const LoopOperator& lo) {
    const Bound next = taken_at(lo.keep, BoundOf::kChunkEnd);
    View from = make_rows_view(lo.output, lo.axis, {next, lo.rows}, &lo);
    View to = from;
    to.sweeps[0].base = next;
    KernelCall copy;
    copy.mode = CallMode::kCopy;
    copy.inputs = {from};
    copy.outputs = {to};
    return copy;
  }

  int buffer_of(ir::TensorId t) const { return buffers_.buffer_of(t); }
  View whole_view(ir::TensorId t) { return buffers_.whole_view(t); }

  const ir::Graph& graph_;
  const analysis::BufferGraph& bg_;
  Plan plan_;
  LoweringBuffers buffers_;  // adds to plan_
  int loops_ = 0;
};

}  // namespace

Status check_row_loop(const ir::Graph& graph, const analysis::BufferGraph& bg, const analysis::Order& order,
                      const RowLoopSpec& spec) {
  return build_row_loop_plan(graph, bg, order, {spec}).map([](const Plan&) {});
}

Result<Plan> build_row_loop_plan(const ir::Graph& graph, const analysis::BufferGraph& bg,
                                 const analysis::Order& order, const std::vector<RowLoopSpec>& loops) {
  std::vector<int> loop_of(bg.operators.size(), -1);  // per operator: the spec that runs it
  std::vector<std::vector<int>> ordered(loops.size());
  for (size_t l = 0; l < loops.size(); ++l) {
    TINYFIT_ASSIGN_OR_RETURN(ordered[l], order_operators(order, loops[l]));
    for (int op : ordered[l]) {
      if (loop_of.at(static_cast<size_t>(op)) >= 0) {
        return fail("row loops share operator " + std::to_string(op), ExitCode::kInternal);
      }
      loop_of[static_cast<size_t>(op)] = static_cast<int>(l);
    }
  }
  RowLoopLowering lowering(graph, bg);
  for (int op : order) {
    const int l = loop_of.at(static_cast<size_t>(op));
    if (l < 0) {
      lowering.lower_whole(op);
    } else if (ordered[static_cast<size_t>(l)].front() == op) {
      TINYFIT_RETURN_IF_ERROR(lowering.lower_loop(ordered[static_cast<size_t>(l)], loops[static_cast<size_t>(l)].tile,
                                                  loops[static_cast<size_t>(l)].axis,
                                                  loops[static_cast<size_t>(l)].most_rate));
    }
  }
  return lowering.finish();
}

}  // namespace tinyfit::plan
