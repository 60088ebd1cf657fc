#include "driver/device_row_programs.h"

#include <algorithm>
#include <optional>
#include <string>

#include "devices/crop_rows.h"
#include "devices/order_block_moves.h"

namespace tinyfit::driver {
namespace {

using devices::row_bytes;

// `bytes` bytes of the arena from `offset`, as a byte view.
codegen::StaticView make_block_view(int64_t offset, int64_t bytes) {
  return codegen::StaticView{offset, ir::DType::kU8, {bytes}, {1}, {0}};
}

std::string describe_rows(const ir::Tensor& t, ir::Range rows) {
  return "'" + t.name + "' rows [" + std::to_string(rows.begin) + ", " + std::to_string(rows.end) + ")";
}

// Device 0's moves as copies where none overwrites bytes a later one still
// reads, bouncing a move of a cycle through free bytes below `arena_bytes`
// (devices/order_block_moves.h); a cycle without room is exit 2.
Result<std::vector<codegen::LocalCopy>> order_moves(const std::vector<codegen::LocalCopy>& moves, int64_t arena_bytes) {
  std::vector<devices::BlockMove> blocks;
  for (const codegen::LocalCopy& m : moves) {
    blocks.push_back({m.from.offset_bytes, m.to.offset_bytes, m.to.count_bytes()});
  }
  const std::optional<std::vector<devices::BlockCopy>> copies = devices::order_block_moves(blocks, arena_bytes);
  if (!copies) {
    return fail("--emit c with --partition rows: device 0's rows cannot move between its plans' buffers "
                "without overwriting one another (blocks land on each other's rows and its arena of " +
                    std::to_string(arena_bytes) + " bytes has no free bytes to bounce one through); not built yet (issue 14)",
                ExitCode::kBadCommandLine);
  }
  std::vector<codegen::LocalCopy> ordered;
  for (const devices::BlockCopy& c : *copies) {
    const codegen::LocalCopy& move = moves[static_cast<size_t>(c.move)];
    const bool bounce = c.block.to_offset != move.to.offset_bytes;
    const bool bounced = c.block.from_offset != move.from.offset_bytes;
    std::string label = move.label;
    if (bounce) label += " (to free bytes first)";
    if (bounced) label += " (from its free bytes)";
    ordered.push_back(codegen::LocalCopy{make_block_view(c.block.from_offset, c.block.bytes),
                                         make_block_view(c.block.to_offset, c.block.bytes), std::move(label)});
  }
  return ordered;
}

class ProgramsBuilder {
 public:
  // `arena_bytes`: device 0's arena (its largest plan's), where a move of
  // a cycle may bounce.
  ProgramsBuilder(size_t devices, int64_t arena_bytes) : arena_bytes_(arena_bytes) {
    out_.plans.resize(devices);
    out_.graphs.resize(devices);
    out_.steps.resize(devices);
  }

  Result<RowPrograms> build(const RowsCompileReport& report) {
    int64_t gathered = 0;  // the end of the gather buffer before this stage (its band plan on device 0 covers it)
    for (const RowsCompileReport* stage = &report; stage != nullptr; stage = stage->tail_rows.get()) {
      add_bands(*stage, stage == &report, gathered);
      if (stage->tail_rows) {
        TINYFIT_ASSIGN_OR_RETURN(gathered, gather_and_scatter(*stage));
      } else {
        TINYFIT_RETURN_IF_ERROR(gather_into_tail(*stage));
      }
    }
    return std::move(out_);
  }

 private:
  size_t count_devices() const { return out_.plans.size(); }

  // Appends plan `plan` of `graph` to device d's plans and its steps.
  void add_plan(size_t d, const ir::Graph& graph, plan::Plan plan) {
    const int index = static_cast<int>(out_.plans[d].size());
    std::vector<codegen::DeviceStep>& steps = out_.steps[d];
    steps.reserve(steps.size() + plan.steps.size());
    for (size_t s = 0; s < plan.steps.size(); ++s) {
      steps.emplace_back(std::in_place_type<codegen::PlanStepRef>, static_cast<int>(s), index);
    }
    out_.plans[d].push_back(std::move(plan));
    out_.graphs[d].push_back(&graph);
  }

  // Every device's band of the stage; the first stage's inputs stay the API.
  void add_bands(const RowsCompileReport& stage, bool first, int64_t gathered) {
    for (size_t d = 0; d < count_devices(); ++d) {
      const BandPart& part = stage.bands[d];
      plan::Plan held = part.report.result().plan;
      std::fill(held.outputs.begin(), held.outputs.end(), -1);
      if (!first) std::fill(held.inputs.begin(), held.inputs.end(), -1);
      if (d == 0) held.arena_bytes = std::max(held.arena_bytes, gathered);
      add_plan(d, part.band.graph, std::move(held));
    }
  }

  // Where device d's share of boundary tensor b sits in its band's output.
  static codegen::StaticView share_block(const RowsCompileReport& stage, size_t d, size_t b) {
    const BandPart& part = stage.bands[d];
    const ir::Range share = part.shares.at(b);
    const ir::Range band = part.band.output_rows.at(b);
    const int64_t bytes = row_bytes(part.band.graph.tensor(part.band.graph.outputs.at(b)));
    const plan::Plan& plan = part.report.result().plan;
    const plan::PlanBuffer& buffer = plan.buffers.at(static_cast<size_t>(plan.outputs.at(b)));
    return make_block_view(buffer.offset + (share.begin - band.begin) * bytes, share.size() * bytes);
  }

  static std::string share_label(const RowsCompileReport& stage, size_t d, size_t b) {
    return describe_rows(stage.tail_graph.tensor(stage.tail_graph.inputs.at(b)), stage.bands[d].shares.at(b));
  }

  // Devices 1.. send their shares; device 0 moves its own to `landing(0, b)`
  // (a move of a cycle bouncing below `bounce_bytes`) and receives the
  // others' at `landing(d, b)`.
  template <typename Landing>
  Status gather(const RowsCompileReport& stage, const Landing& landing, int64_t bounce_bytes) {
    std::vector<codegen::LocalCopy> moves;
    for (size_t b = 0; b < stage.boundary.size(); ++b) {
      moves.push_back(codegen::LocalCopy{share_block(stage, 0, b), landing(0, b), share_label(stage, 0, b)});
    }
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<codegen::LocalCopy> ordered, order_moves(moves, bounce_bytes));
    out_.steps[0].insert(out_.steps[0].end(), ordered.begin(), ordered.end());
    for (size_t d = 1; d < count_devices(); ++d) {
      for (size_t b = 0; b < stage.boundary.size(); ++b) {
        out_.steps[d].push_back(codegen::LinkTransfer{codegen::LinkDirection::kSend, 0, share_block(stage, d, b),
                                                      share_label(stage, d, b)});
        out_.steps[0].push_back(codegen::LinkTransfer{codegen::LinkDirection::kReceive, static_cast<int>(d),
                                                      landing(d, b), share_label(stage, d, b)});
      }
    }
    return {};
  }

  // The last stage: the shares land in the tail's input buffers; device 0
  // then runs the tail (the model's outputs its API).
  Status gather_into_tail(const RowsCompileReport& stage) {
    const plan::Plan& tail = stage.tail.result().plan;
    const auto landing = [&](size_t d, size_t b) {
      const ir::Range share = stage.bands[d].shares.at(b);
      const int64_t bytes = row_bytes(stage.tail_graph.tensor(stage.tail_graph.inputs.at(b)));
      const plan::PlanBuffer& buffer = tail.buffers.at(static_cast<size_t>(tail.inputs.at(b)));
      return make_block_view(buffer.offset + share.begin * bytes, share.size() * bytes);
    };
    TINYFIT_RETURN_IF_ERROR(gather(stage, landing, arena_bytes_));
    plan::Plan held = tail;
    std::fill(held.inputs.begin(), held.inputs.end(), -1);
    add_plan(0, stage.tail_graph, std::move(held));
    return {};
  }

  // A stage with a further one: the shares land in the gather buffer (the
  // boundary tensors whole, one after another), and device 0 hands every
  // device its next band's inputs from there. The buffer starts at offset 0,
  // its tensors in the tail's input order; when device 0's moves into it or
  // out of it would land on one another's sources (order-block-moves finds no
  // order without a bounce), the tensors are laid out in another order (every
  // permutation of the first kMaxPermuted), then from other offsets: ending
  // where the larger of device 0's two band arenas (or the buffer) ends, and
  // every 16th byte in between (its SRAM covers them all). When none orders
  // without a bounce, the buffer starts at 0 in the tail's input order and a
  // move of each cycle bounces through free bytes of device 0's arena (an
  // extra copy of the smallest block; MCUNetV2-SE-Large on 2 x 128 KiB, whose
  // stage 6 gathers three tensors, needs one). Returns the end of the gather
  // buffer.
  Result<int64_t> gather_and_scatter(const RowsCompileReport& stage) {
    constexpr int64_t kStep = 16;
    constexpr size_t kMaxPermuted = 4;  // 24 orders at most, each tried at every base: a few moves per try
    const int64_t top = std::max({stage.bands[0].report.result().arena_bytes,
                                  stage.tail_rows->bands[0].report.result().arena_bytes, stage.gather_bytes});
    std::vector<int64_t> bases = {0, top - stage.gather_bytes};
    for (int64_t base = kStep; base < top - stage.gather_bytes; base += kStep) bases.push_back(base);
    std::vector<size_t> order(stage.tail_graph.inputs.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    const auto permuted_end = order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), kMaxPermuted));
    const std::vector<std::vector<codegen::DeviceStep>> before = out_.steps;
    for (int64_t base : bases) {
      do {
        out_.steps = before;
        if (gather_and_scatter_at(stage, base, order, 0)) return base + stage.gather_bytes;
      } while (std::next_permutation(order.begin(), permuted_end));
    }
    out_.steps = before;
    TINYFIT_RETURN_IF_ERROR(gather_and_scatter_at(stage, 0, order, arena_bytes_));
    return stage.gather_bytes;
  }

  // gather_and_scatter with the gather buffer from offset `base`, the
  // boundary tensors (tail inputs) in `order`, a move of a cycle bouncing
  // below `bounce_bytes` (0: never).
  Status gather_and_scatter_at(const RowsCompileReport& stage, int64_t base, const std::vector<size_t>& order,
                               int64_t bounce_bytes) {
    const ir::Graph& tail_graph = stage.tail_graph;
    std::vector<int64_t> offsets(tail_graph.inputs.size());  // per boundary tensor (= tail input), in the gather buffer
    int64_t offset = base;
    for (size_t k : order) {
      offsets[k] = offset;
      offset += tail_graph.tensor(tail_graph.inputs[k]).size_bytes();
    }
    const auto gathered_rows = [&](size_t b, ir::Range rows) {
      const int64_t bytes = row_bytes(tail_graph.tensor(tail_graph.inputs.at(b)));
      return make_block_view(offsets.at(b) + rows.begin * bytes, rows.size() * bytes);
    };
    TINYFIT_RETURN_IF_ERROR(
        gather(stage, [&](size_t d, size_t b) { return gathered_rows(b, stage.bands[d].shares.at(b)); }, bounce_bytes));
    const RowsCompileReport& next = *stage.tail_rows;
    std::vector<codegen::LocalCopy> moves;
    for (size_t d = 0; d < count_devices(); ++d) {
      const BandPart& part = next.bands[d];
      const plan::Plan& plan = part.report.result().plan;
      for (size_t i = 0; i < part.band.model_inputs.size(); ++i) {
        const size_t b = static_cast<size_t>(std::find(tail_graph.inputs.begin(), tail_graph.inputs.end(),
                                                       part.band.model_inputs[i]) -
                                             tail_graph.inputs.begin());
        const ir::Range rows = part.band.input_rows[i];
        const codegen::StaticView from = gathered_rows(b, rows);
        const codegen::StaticView to =
            make_block_view(plan.buffers.at(static_cast<size_t>(plan.inputs.at(i))).offset, from.count_bytes());
        const std::string label = describe_rows(tail_graph.tensor(tail_graph.inputs.at(b)), rows);
        if (d == 0) {
          moves.push_back(codegen::LocalCopy{from, to, label});
          continue;
        }
        out_.steps[0].push_back(codegen::LinkTransfer{codegen::LinkDirection::kSend, static_cast<int>(d), from, label});
        out_.steps[d].push_back(codegen::LinkTransfer{codegen::LinkDirection::kReceive, 0, to, label});
      }
    }
    TINYFIT_ASSIGN_OR_RETURN(const std::vector<codegen::LocalCopy> ordered, order_moves(moves, bounce_bytes));
    out_.steps[0].insert(out_.steps[0].end(), ordered.begin(), ordered.end());
    return {};
  }

  int64_t arena_bytes_;
  RowPrograms out_;
};

}  // namespace

std::vector<codegen::DeviceProgram> RowPrograms::programs() const {
  std::vector<codegen::DeviceProgram> out;
  for (size_t d = 0; d < plans.size(); ++d) {
    std::vector<codegen::GraphPlan> more;
    for (size_t k = 1; k < plans[d].size(); ++k) more.push_back({graphs[d][k], &plans[d][k]});
    out.push_back({graphs[d][0], &plans[d][0], steps[d], std::move(more)});
  }
  return out;
}

Result<RowPrograms> make_row_programs(const RowsCompileReport& report) {
  TINYFIT_CHECK(report.bands.size() >= 2) << "rows programs for " << report.bands.size() << " devices";
  return ProgramsBuilder(report.bands.size(), report.sram_bytes.at(0)).build(report);
}

}  // namespace tinyfit::driver
