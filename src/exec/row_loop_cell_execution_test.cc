// Row loops through Concat and Slice run (issue 11, NAS cells; MOTES §4.5):
// seeded random NAS-like cells (tests/support/random_row_cell.h: Adds of two
// edges, channel Concats, channel Slices, row crops, a factorized reduce with
// its one-pixel Slice), int8 and float32, lowered with one row loop from a
// random operator to the cell's last (plan/lower_row_loop.h) at tiles that do
// and do not divide the rows, with or without the fast conv kernels'
// workspaces, then placed, verified and executed in an arena of exactly
// arena_bytes filled with poison: int8 bit-exact with the reference
// interpreter, float32 within summation-order error, and the plan's MACs the
// graph's.
//
// Reproduce one case: TINYFIT_ROW_SEED=<seed>; more cases: TINYFIT_ROW_CASES=<n>.
#include <gtest/gtest.h>

#include <sstream>

#include "ir/verify_graph.h"
#include "plan/lower_row_loop.h"
#include "support/random_row_cell.h"
#include "support/row_loop_runs.h"

namespace tinyfit::exec {
namespace {

using row_cell::CellSpec;

struct CellCase {
  CellSpec cell;
  int first_op = 0;  // the row loop runs operators first_op .. the last
  int64_t tile = 1;
  bool workspaces = false;
};

std::string describe_case(const CellCase& c) {
  std::ostringstream out;
  out << "seed " << c.cell.seed << ", " << ir::dtype_name(c.cell.dtype) << ", " << c.cell.nodes << " nodes, "
      << c.cell.rows << "x" << c.cell.cols << (c.cell.reduction ? " after a factorized reduce" : "")
      << ", loop from operator " << c.first_op << ", tile " << c.tile
      << (c.workspaces ? ", fast-kernel workspaces" : "");
  return out.str();
}

// Empty when the row-loop plan matches the reference; otherwise what differs.
std::string check_case(const CellCase& c) {
  const kernel_oracle::OracleCase net = row_cell::make_random_row_cell(c.cell);
  if (Status valid = ir::verify_graph(net.graph); !valid) return "generator: " + valid.error().message;
  const analysis::BufferGraph bg = analysis::build_buffer_graph(net.graph);
  const int operators = static_cast<int>(bg.operators.size());
  plan::RowLoopSpec spec;
  for (int op = std::min(c.first_op, operators - 1); op < operators; ++op) spec.ops.push_back(op);
  const ir::Node& sink = net.graph.nodes.at(static_cast<size_t>(bg.operators.back().node));
  spec.tile = std::min(c.tile, net.graph.output_tensor(sink, 0).shape[1]);
  Result<plan::Plan> plan = plan::build_row_loop_plan(net.graph, bg, analysis::given_order(bg), {spec});
  if (!plan) return "lowering: " + plan.error().format();
  return testing::check_row_plan(net, std::move(*plan), c.workspaces);
}

// Random cases: 1-8 random operators over 4-12 rows, half of them after a
// factorized reduce, the loop from a random operator (often the first), a
// random tile (which may not divide the rows).
CellCase make_case(uint64_t seed, ir::DType dtype) {
  kernel_oracle::Random r(seed * 0x9E3779B97F4A7C15ull + 29);
  CellCase c;
  c.cell.seed = seed;
  c.cell.dtype = dtype;
  c.cell.nodes = static_cast<int>(r.uniform_int(1, 8));
  c.cell.rows = r.uniform_int(4, 12);
  c.cell.cols = r.uniform_int(1, 5);
  c.cell.reduction = r.chance(0.5);
  c.first_op = r.chance(0.5) ? 0 : static_cast<int>(r.uniform_int(0, 2 * c.cell.nodes));
  c.tile = r.uniform_int(1, 5);
  c.workspaces = r.chance(0.5);
  return c;
}

void run_random_cases(ir::DType dtype, int default_cases) {
  testing::for_each_row_seed(default_cases, [&](uint64_t seed) -> std::string {
    const CellCase c = make_case(seed, dtype);
    const std::string failure = check_case(c);
    if (failure.empty()) return {};
    return describe_case(c) + ": " + failure + "\n" +
           testing::describe_operators(row_cell::make_random_row_cell(c.cell).graph);
  });
}

TEST(RowLoopCellExecution, RandomInt8CellsThroughConcatAndSliceMatchTheReferenceBitForBit) {
  run_random_cases(ir::DType::kI8, 300);
}

TEST(RowLoopCellExecution, RandomFloatCellsThroughConcatAndSliceMatchTheReference) {
  run_random_cases(ir::DType::kF32, 300);
}

TEST(RowLoopCellExecution, EveryTileOfAFactorizedReduceCellMatchesTheReference) {
  CellCase c;
  c.cell.seed = 3;
  c.cell.nodes = 6;
  c.cell.rows = 7;  // prime: only tiles 1 and 7 divide it
  c.cell.reduction = true;
  for (c.tile = 1; c.tile <= 7; ++c.tile) {
    for (bool workspaces : {false, true}) {
      c.workspaces = workspaces;
      EXPECT_EQ(check_case(c), "") << describe_case(c);
    }
  }
}

}  // namespace
}  // namespace tinyfit::exec
