#include "driver/device_row_programs.h"

#include <algorithm>
#include <optional>
#include <string>

#include "devices/order_block_moves.h"

namespace tinyfit::driver {
namespace {

// Bytes of one row of an NHWC tensor.
int64_t row_bytes(const ir::Tensor& t) { return t.shape[2] * t.shape[3] * ir::dtype_size_bytes(t.dtype); }

// `bytes` bytes of the arena from `offset`, as a byte view.
codegen::StaticView make_block_view(int64_t offset, int64_t bytes) {
  return codegen::StaticView{offset, ir::DType::kU8, {bytes}, {1}, {0}};
}

// Device 0's moves in an order where none overwrites bytes a later one still
// reads (devices/order_block_moves.h); a cycle is exit 2.
Result<std::vector<codegen::LocalCopy>> order_moves(const std::vector<codegen::LocalCopy>& moves) {
  std::vector<devices::BlockMove> blocks;
  for (const codegen::LocalCopy& m : moves) {
    blocks.push_back({m.from.offset_bytes, m.to.offset_bytes, m.to.count_bytes()});
  }
  const std::optional<std::vector<int>> order = devices::order_block_moves(blocks);
  if (!order) {
    return fail("--emit c with --partition rows: device 0's boundary rows cannot move into the tail's input "
                "without overwriting one another (two blocks land on each other's rows); not built yet (issue 14)",
                ExitCode::kBadCommandLine);
  }
  std::vector<codegen::LocalCopy> ordered;
  for (int i : *order) ordered.push_back(moves[static_cast<size_t>(i)]);
  return ordered;
}

}  // namespace

std::vector<codegen::DeviceProgram> RowPrograms::programs(const RowsCompileReport& report) const {
  std::vector<codegen::DeviceProgram> out;
  for (size_t d = 0; d < bands.size(); ++d) {
    std::vector<codegen::GraphPlan> more;
    if (d == 0) more.push_back({&report.tail_graph, &tail});
    out.push_back({&report.bands[d].band.graph, &bands[d], steps[d], std::move(more)});
  }
  return out;
}

Result<RowPrograms> make_row_programs(const RowsCompileReport& report) {
  const size_t n = report.bands.size();
  TINYFIT_CHECK(n >= 2) << "rows programs for " << n << " devices";
  RowPrograms out;
  out.steps.resize(n);
  out.tail = report.tail.result().plan;
  std::fill(out.tail.inputs.begin(), out.tail.inputs.end(), -1);
  const ir::Graph& tail_graph = report.tail_graph;
  // Where device d's share of boundary tensor b sits in its band's output,
  // and where it lands in the tail's input.
  const auto share_block = [&](size_t d, size_t b) {
    const BandPart& part = report.bands[d];
    const ir::Range share = part.shares.at(b);
    const ir::Range band = part.band.output_rows.at(b);
    const int64_t bytes = row_bytes(part.band.graph.tensor(part.band.graph.outputs.at(b)));
    const plan::Plan& plan = part.report.result().plan;
    const plan::PlanBuffer& buffer = plan.buffers.at(static_cast<size_t>(plan.outputs.at(b)));
    return make_block_view(buffer.offset + (share.begin - band.begin) * bytes, share.size() * bytes);
  };
  const auto landing_block = [&](size_t d, size_t b) {
    const ir::Range share = report.bands[d].shares.at(b);
    const int64_t bytes = row_bytes(tail_graph.tensor(tail_graph.inputs.at(b)));
    const plan::PlanBuffer& buffer = out.tail.buffers.at(static_cast<size_t>(report.tail.result().plan.inputs.at(b)));
    return make_block_view(buffer.offset + share.begin * bytes, share.size() * bytes);
  };
  const auto label = [&](size_t d, size_t b) {
    const ir::Range share = report.bands[d].shares.at(b);
    return "'" + tail_graph.tensor(tail_graph.inputs.at(b)).name + "' rows [" + std::to_string(share.begin) + ", " +
           std::to_string(share.end) + ")";
  };
  std::vector<codegen::LocalCopy> moves;
  for (size_t d = 0; d < n; ++d) {
    const plan::Plan& band = report.bands[d].report.result().plan;
    plan::Plan held = band;
    std::fill(held.outputs.begin(), held.outputs.end(), -1);
    out.bands.push_back(std::move(held));
    for (size_t s = 0; s < band.steps.size(); ++s) out.steps[d].push_back(codegen::PlanStepRef{static_cast<int>(s), 0});
    for (size_t b = 0; b < report.boundary.size(); ++b) {
      if (d == 0) {
        moves.push_back(codegen::LocalCopy{share_block(0, b), landing_block(0, b), label(0, b)});
      } else {
        out.steps[d].push_back(
            codegen::LinkTransfer{codegen::LinkDirection::kSend, 0, share_block(d, b), label(d, b)});
      }
    }
  }
  TINYFIT_ASSIGN_OR_RETURN(const std::vector<codegen::LocalCopy> ordered, order_moves(moves));
  out.steps[0].insert(out.steps[0].end(), ordered.begin(), ordered.end());
  for (size_t d = 1; d < n; ++d) {
    for (size_t b = 0; b < report.boundary.size(); ++b) {
      out.steps[0].push_back(codegen::LinkTransfer{codegen::LinkDirection::kReceive, static_cast<int>(d),
                                                   landing_block(d, b), label(d, b)});
    }
  }
  for (size_t s = 0; s < out.tail.steps.size(); ++s) out.steps[0].push_back(codegen::PlanStepRef{static_cast<int>(s), 1});
  return out;
}

}  // namespace tinyfit::driver
