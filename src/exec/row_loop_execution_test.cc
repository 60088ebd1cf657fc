// Row-loop plans run (issue 11 §1-§2): seeded random chains of convolutions
// (random kernel, stride, dilation, asymmetric padding), depthwise
// convolutions, pools and residual Adds, int8 and float32
// (tests/support/random_row_chain.h), lowered with a row loop over the whole
// chain or a consecutive part of it (plan/lower_row_loop.h) at tiles that do
// and do not divide the rows, also with a channel loop nested inside the row
// loop around every call, with or without the fast conv kernels' workspaces,
// walking one or more steps per row of the sink (Bounds with divisors)
// (so the __dsp row kernels read windows too), then placed, verified and executed in an arena of
// exactly arena_bytes filled with poison: int8 bit-exact with the reference
// interpreter, float32 within summation-order error, and the plan's MACs the
// graph's (no row computed twice). Chains ending in a global pool run the
// loop on through it (the pool accumulated by rows).
//
// Reproduce one case: TINYFIT_ROW_SEED=<seed>; more cases: TINYFIT_ROW_CASES=<n>.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "ir/verify_graph.h"
#include "partition/partition_scheme.h"
#include "plan/lower_row_loop.h"
#include "support/nested_loops.h"
#include "support/random_row_chain.h"
#include "support/row_loop_runs.h"

namespace tinyfit::exec {
namespace {

using row_chain::ChainSpec;

struct RowCase {
  ChainSpec chain;
  int first_op = 0, last_op = 0;  // the row loop's operators, inclusive
  int64_t tile = 1;
  int64_t channel_tile = 0;       // > 0: a channel loop nested around each call
  bool workspaces = false;        // conv calls get their fastest kernels' workspaces (the __dsp row kernels)
  int64_t most_rate = 1;          // steps per sink row the loop may walk (RowLoopSpec::most_rate)
};

std::string describe_case(const RowCase& c) {
  std::ostringstream out;
  out << "seed " << c.chain.seed << ", " << ir::dtype_name(c.chain.dtype) << ", " << c.chain.operators
      << " operators, loop over operators " << c.first_op << ".." << c.last_op << ", tile " << c.tile;
  if (c.channel_tile > 0) out << ", channel loops of " << c.channel_tile;
  if (c.workspaces) out << ", fast-kernel workspaces";
  if (c.most_rate > 1) out << ", up to " << c.most_rate << " steps per sink row";
  return out.str();
}

// Empty when the row-loop plan matches the reference; otherwise what differs.
std::string check_case(const RowCase& c) {
  const kernel_oracle::OracleCase net = row_chain::make_random_row_chain(c.chain);
  if (Status valid = ir::verify_graph(net.graph); !valid) return "generator: " + valid.error().message;
  const analysis::BufferGraph bg = analysis::build_buffer_graph(net.graph);
  plan::RowLoopSpec spec;
  for (int op = c.first_op; op <= c.last_op; ++op) spec.ops.push_back(op);
  const ir::Node& sink = net.graph.nodes.at(static_cast<size_t>(bg.operators.at(static_cast<size_t>(c.last_op)).node));
  // A global pool ending the loop walks its input's rows.
  const bool accumulates = partition::ends_in_accumulated_pool(net.graph, bg, spec.ops);
  const ir::Tensor& walked = accumulates ? net.graph.input_tensor(sink, 0) : net.graph.output_tensor(sink, 0);
  spec.tile = std::min(c.tile, walked.shape[1]);
  spec.most_rate = c.most_rate;
  Result<plan::Plan> plan = plan::build_row_loop_plan(net.graph, bg, analysis::given_order(bg), {spec});
  if (!plan) return "lowering: " + plan.error().format();
  if (accumulates && !std::any_of(plan->steps.begin(), plan->steps.end(), [](const plan::Step& step) {
        return !step.is_loop() && step.call().mode == plan::CallMode::kFinalize;
      })) {
    return "the global pool is not accumulated";
  }
  if (c.channel_tile > 0) *plan = testing::nest_channel_loops(net.graph, std::move(*plan), c.channel_tile);
  return testing::check_row_plan(net, std::move(*plan), c.workspaces);
}

// Random cases: a chain of 1-6 operators over 5-14 rows, a row loop over a
// random consecutive part of it at a random tile (which may not divide the
// rows), one case in three with channel loops nested inside, the loop
// allowed 1-3 steps per sink row (producers before a strided window at their
// own rate where that needs fewer bytes).
RowCase make_case(uint64_t seed, ir::DType dtype) {
  kernel_oracle::Random r(seed * 0x9E3779B97F4A7C15ull + 17);
  RowCase c;
  c.chain.seed = seed;
  c.chain.dtype = dtype;
  c.chain.operators = static_cast<int>(r.uniform_int(1, 6));
  c.chain.rows = r.uniform_int(5, 14);
  c.chain.cols = r.uniform_int(1, 5);
  c.first_op = static_cast<int>(r.uniform_int(0, c.chain.operators - 1));
  c.last_op = static_cast<int>(r.uniform_int(c.first_op, c.chain.operators - 1));
  c.tile = r.uniform_int(1, 5);
  c.channel_tile = r.chance(0.33) ? r.uniform_int(1, 3) : 0;
  c.workspaces = r.chance(0.5);
  c.most_rate = r.uniform_int(1, 3);
  return c;
}

void run_random_cases(ir::DType dtype, int default_cases, bool global_pool = false) {
  testing::for_each_row_seed(default_cases, [&](uint64_t seed) -> std::string {
    RowCase c = make_case(seed, dtype);
    if (global_pool) {  // the loop runs on to the pool after the chain
      c.chain.global_pool = true;
      c.last_op = c.chain.operators;
      c.channel_tile = 0;
    }
    const std::string failure = check_case(c);
    if (failure.empty()) return {};
    return describe_case(c) + ": " + failure + "\n" +
           testing::describe_operators(row_chain::make_random_row_chain(c.chain).graph);
  });
}

// 500 cases per dtype run in about 0.1 s.
TEST(RowLoopExecution, RandomInt8ChainsMatchTheReferenceBitForBitWithTheGraphsMacs) {
  run_random_cases(ir::DType::kI8, 500);
}

TEST(RowLoopExecution, RandomFloatChainsMatchTheReferenceWithTheGraphsMacs) {
  run_random_cases(ir::DType::kF32, 500);
}

// The loop ends at a global average or max pool, which folds the rows of its
// input into an int32 accumulator per channel as they are made and writes its
// output after the loop (kAccumulate, kFinalize).
TEST(RowLoopExecution, RandomInt8ChainsEndingInAGlobalPoolAccumulateItBitForBit) {
  run_random_cases(ir::DType::kI8, 300, true);
}

TEST(RowLoopExecution, RandomUint8ChainsEndingInAGlobalPoolAccumulateItBitForBit) {
  run_random_cases(ir::DType::kU8, 300, true);
}

TEST(RowLoopExecution, EveryTileOfOneChainMatchesTheReference) {
  RowCase c;
  c.chain.seed = 7;
  c.chain.operators = 6;
  c.chain.rows = 13;  // prime: only tiles 1 and 13 divide it
  c.last_op = 5;
  for (c.tile = 1; c.tile <= 13; ++c.tile) {
    for (int64_t channel_tile : {0, 2}) {
      for (bool workspaces : {false, true}) {
        c.channel_tile = channel_tile;
        c.workspaces = workspaces;
        EXPECT_EQ(check_case(c), "") << describe_case(c);
      }
    }
  }
}

}  // namespace
}  // namespace tinyfit::exec
