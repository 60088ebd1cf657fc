// Element-wise and Slice calls written over their input's rows inside a row
// loop (plan/write_rows_in_place.h) run: seeded random NAS-like cells
// (tests/support/random_row_cell.h: Adds, and the factorized reduce's
// one-pixel shift, a Slice from row and col 1) and chains of NAS cells whose
// convolution edges each read a ReLU (tests/support/random_nas_chain.h), int8
// with random quantisations and float32, lowered as one row loop from a random
// operator to the last, rewritten, then verified, placed and executed in an
// arena of exactly arena_bytes filled with poison, every read checked against
// the last writer of its bytes: int8 bit-exact with the reference interpreter,
// float32 within summation-order error, the plan's MACs the graph's, its peak
// never above the plan's before the rewrite.
//
// Reproduce one case: TINYFIT_ROW_SEED=<seed>; more cases: TINYFIT_ROW_CASES=<n>.
#include <gtest/gtest.h>

#include <sstream>

#include "ir/verify_graph.h"
#include "partition/acg.h"
#include "partition/order_loop_body.h"
#include "partition/partition_scheme.h"
#include "partition/row_geometry.h"
#include "plan/lower_row_loop.h"
#include "plan/plan_memory.h"
#include "plan/plan_walk.h"
#include "plan/verify_plan.h"
#include "plan/write_rows_in_place.h"
#include "support/random_nas_chain.h"
#include "support/random_row_cell.h"
#include "support/row_loop_runs.h"

namespace tinyfit::exec {
namespace {

struct RowsInPlaceCase {
  uint64_t seed = 0;
  bool chain = false;  // a chain of NAS cells with ReLU edges instead of one cell
  row_cell::CellSpec cell;
  double loop_start = 0;    // the loop starts this far into the operators (0: at the first)
  bool reorder = false;     // the loop's body in partition/order_loop_body.h's order
  bool workspaces = false;  // the fast conv kernels' workspaces
};

std::string describe_case(const RowsInPlaceCase& c) {
  std::ostringstream out;
  out << "seed " << c.seed << ", ";
  if (c.chain) {
    out << "NAS chain with ReLU edges";
  } else {
    out << ir::dtype_name(c.cell.dtype) << " cell of " << c.cell.nodes << " nodes, " << c.cell.rows << "x"
        << c.cell.cols << (c.cell.reduction ? " after a factorized reduce" : "");
  }
  out << ", row loop from " << c.loop_start << " of the operators" << (c.reorder ? ", body reordered" : "")
      << (c.workspaces ? ", fast-kernel workspaces" : "");
  return out.str();
}

kernel_oracle::OracleCase make_net(const RowsInPlaceCase& c) {
  if (!c.chain) return row_cell::make_random_row_cell(c.cell);
  nas_chain::ChainSpec spec;
  spec.seed = c.seed;
  spec.cells = 2;
  spec.rows = 8;
  spec.cols = 4;
  spec.relu_edges = true;
  return nas_chain::make_random_nas_chain(spec);
}

RowsInPlaceCase make_case(uint64_t seed, ir::DType dtype) {
  kernel_oracle::Random r(seed * 0x9E3779B97F4A7C15ull + 43);
  RowsInPlaceCase c;
  c.seed = seed;
  c.chain = dtype == ir::DType::kI8 && r.chance(0.4);
  c.cell.seed = seed;
  c.cell.dtype = dtype;
  c.cell.nodes = static_cast<int>(r.uniform_int(2, 9));
  c.cell.rows = r.uniform_int(2, 8);
  c.cell.cols = r.uniform_int(1, 5);
  c.cell.reduction = r.chance(0.6);
  c.loop_start = r.chance(0.5) ? 0.0 : r.uniform(0.0, 0.5);
  c.workspaces = r.chance(0.5);
  c.reorder = r.chance(0.5);
  return c;
}

// Empty when the case passes; otherwise what failed. Adds the calls put in
// place to `in_place`, the Slices among them to `slices`, and a loop whose
// body order changed to `reordered`.
std::string check_case(const RowsInPlaceCase& c, int& in_place, int& slices, int& reordered) {
  const kernel_oracle::OracleCase net = make_net(c);
  if (Status valid = ir::verify_graph(net.graph); !valid) return "generator: " + valid.error().message;
  const analysis::BufferGraph bg = analysis::build_buffer_graph(net.graph);
  // One loop from a random operator to the last; a chain's cells change
  // their rows, so its loop ends at the last operator one loop can reach.
  // Half the cases run the loop's body in order_loop_body's order.
  const int operators = static_cast<int>(bg.operators.size());
  analysis::Order order = analysis::given_order(bg);
  Result<plan::Plan> looped = fail("no row loop");
  for (int end = operators; end > 1 && !looped; --end) {
    plan::RowLoopSpec spec;
    for (int op = static_cast<int>(c.loop_start * end); op < end; ++op) spec.ops.push_back(op);
    order = analysis::given_order(bg);
    if (c.reorder) {
      Result<partition::PartitionScheme> scheme = partition::make_partition_scheme(
          net.graph, bg, partition::build_acg(net.graph), spec.ops, partition::PartitionAxis::kRows, 1);
      Result<partition::RowGeometry> geometry =
          scheme ? partition::compute_row_geometry(net.graph, bg, *scheme) : Result<partition::RowGeometry>(fail("-"));
      if (geometry) {
        const std::vector<int> body = partition::order_loop_body(net.graph, bg, spec.ops, *geometry).ops;
        std::copy(body.begin(), body.end(), order.begin() + spec.ops.front());
        reordered += body != spec.ops;
      }
    }
    looped = plan::build_row_loop_plan(net.graph, bg, order, {spec});
    if (!c.chain) break;
  }
  if (!looped) return "lowering: " + looped.error().format();
  if (!analysis::is_topological_order(bg, order)) return "the loop body's order is not topological";
  const plan::Plan before = std::move(*looped);
  plan::RowsInPlaceResult rewritten = plan::write_rows_in_place(net.graph, before);
  in_place += rewritten.calls_in_place;
  const Status counted = plan::walk_calls(rewritten.plan.steps, [&](const plan::KernelCall& call, plan::LoopNest) {
    slices += call.node >= 0 && net.graph.nodes[static_cast<size_t>(call.node)].op == ir::OpType::kSlice &&
              call.inputs.at(0).buffer == call.outputs.at(0).buffer;
    return Status{};
  });
  if (!counted) return "walk: " + counted.error().message;
  if (rewritten.plan.buffers.size() + static_cast<size_t>(rewritten.calls_in_place) != before.buffers.size()) {
    return "the rewrite put " + std::to_string(rewritten.calls_in_place) + " calls in place but removed " +
           std::to_string(before.buffers.size() - rewritten.plan.buffers.size()) + " buffers";
  }
  if (Status valid = plan::verify_plan(net.graph, rewritten.plan); !valid) {
    return "verify_plan: " + valid.error().message;
  }
  const int64_t peak_before = plan::compute_plan_memory(before).peak_bytes;
  const int64_t peak_after = plan::compute_plan_memory(rewritten.plan).peak_bytes;
  if (peak_after > peak_before) {
    return "peak rose from " + std::to_string(peak_before) + " to " + std::to_string(peak_after);
  }
  return testing::check_row_plan(net, std::move(rewritten.plan), c.workspaces);
}

// `least_in_place`, `least_slices`, `least_reordered`: what the default cases
// must put in place and reorder.
void run_random_cases(ir::DType dtype, int default_cases, int least_in_place, int least_slices, int least_reordered) {
  int in_place = 0, slices = 0, reordered = 0;
  const testing::RowSeedRun run = testing::for_each_row_seed(default_cases, [&](uint64_t seed) -> std::string {
    const RowsInPlaceCase c = make_case(seed, dtype);
    const std::string failure = check_case(c, in_place, slices, reordered);
    if (failure.empty()) return {};
    return describe_case(c) + ": " + failure + "\n" + testing::describe_operators(make_net(c).graph);
  });
  // The rewrite must happen, or the cases above test nothing.
  if (!run.one_seed && run.cases == default_cases) {
    EXPECT_GE(in_place, least_in_place);
    EXPECT_GE(slices, least_slices);
    EXPECT_GE(reordered, least_reordered);
  }
}

TEST(RowsInPlaceExecution, RandomInt8CellsAndChainsMatchTheReferenceBitForBit) {
  run_random_cases(ir::DType::kI8, 150, 150, 14, 13);  // measured: 321 calls, 28 Slices, 27 bodies reordered
}

TEST(RowsInPlaceExecution, RandomFloatCellsMatchTheReference) {
  run_random_cases(ir::DType::kF32, 150, 120, 5, 8);  // measured: 250 calls, 11 Slices, 16 bodies reordered
}

}  // namespace
}  // namespace tinyfit::exec
