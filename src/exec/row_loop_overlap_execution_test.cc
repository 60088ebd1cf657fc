// Row loops whose output overwrites their consumed input (issue 12 item 5,
// plan/lower_row_loop_overlap.h): seeded random chains of convolutions
// (random kernel, stride, dilation, asymmetric padding), depthwise
// convolutions, pools and residual Adds, int8 and float32
// (tests/support/random_row_chain.h), a row loop over a random consecutive
// part at a random tile, the loop overlap declared by the lowering, then
// placed, verified and executed in an arena of exactly arena_bytes in the
// executor's checking mode (every read checked against the last writer of
// its bytes): bit-exact with the reference interpreter (float32 within
// summation-order error), the plan's MACs the graph's, no position's live
// bytes above the plan without the overlap. Also: the lowering's limit is
// exactly the replay's (at L safe, at L + 1 not), verify_plan rejects an
// offset one byte past the limit, and the executor's shadow check catches
// the overwritten row when such a plan runs anyway.
// The same with the output at its limit and the loop's carried and partial
// row buffers stacked below it in the consumed input
// (plan/lower_row_buffer_overlap.h): every row buffer's offset within its
// limit, the limit exactly the replay's, the plan bit-exact in its exact
// arena under the overwrite check; a row buffer moved past its limit is
// rejected by verify_plan and, run anyway, clobbers an input byte a later
// call reads, which the shadow check reports.
//
// Reproduce one case: TINYFIT_ROW_SEED=<seed>; more cases: TINYFIT_ROW_CASES=<n>.
#include <gtest/gtest.h>

#include <sstream>

#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "ir/verify_graph.h"
#include "plan/lower_row_buffer_overlap.h"
#include "plan/lower_row_loop.h"
#include "plan/lower_row_loop_overlap.h"
#include "plan/plan_macs.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"
#include "plan/verify_row_loop_overlaps.h"
#include "support/random_row_chain.h"
#include "support/row_loop_runs.h"

namespace tinyfit::exec {
namespace {

using row_chain::ChainSpec;

struct OverlapCase {
  ChainSpec chain;
  int first_op = 0, last_op = 0;  // the row loop's operators, inclusive
  int64_t tile = 1;
  bool row_buffers = false;  // output at its limit, row buffers below it
};

std::string describe_case(const OverlapCase& c) {
  std::ostringstream out;
  out << "seed " << c.chain.seed << ", " << ir::dtype_name(c.chain.dtype) << ", " << c.chain.operators
      << " operators, " << c.chain.rows << "x" << c.chain.cols << ", loop over operators " << c.first_op << ".."
      << c.last_op << ", tile " << c.tile << (c.row_buffers ? ", row buffers in the input" : "");
  return out.str();
}

OverlapCase make_case(uint64_t seed, ir::DType dtype, bool row_buffers) {
  kernel_oracle::Random r(seed * 0xD1B54A32D192ED03ull + 5);
  OverlapCase c;
  c.chain.seed = seed;
  c.chain.dtype = dtype;
  c.chain.operators = static_cast<int>(r.uniform_int(1, 6));
  c.chain.rows = r.uniform_int(5, 16);
  c.chain.cols = r.uniform_int(1, 5);
  c.first_op = static_cast<int>(r.uniform_int(0, c.chain.operators - 1));
  c.last_op = static_cast<int>(r.uniform_int(c.first_op, c.chain.operators - 1));
  c.tile = r.uniform_int(1, 5);
  c.row_buffers = row_buffers;
  return c;
}

struct Lowered {
  kernel_oracle::OracleCase net;
  plan::Plan without;  // the row-loop plan (row_buffers: with the output's overlap at its limit)
  plan::RowLoopOverlapResult with;
};

Result<Lowered> lower_case(const OverlapCase& c) {
  Lowered l;
  l.net = row_chain::make_random_row_chain(c.chain);
  TINYFIT_RETURN_IF_ERROR(ir::verify_graph(l.net.graph));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(l.net.graph);
  plan::RowLoopSpec spec;
  for (int op = c.first_op; op <= c.last_op; ++op) spec.ops.push_back(op);
  const ir::Node& sink = l.net.graph.nodes.at(static_cast<size_t>(bg.operators.at(static_cast<size_t>(c.last_op)).node));
  spec.tile = std::min(c.tile, l.net.graph.output_tensor(sink, 0).shape[1]);
  TINYFIT_ASSIGN_OR_RETURN(l.without, plan::build_row_loop_plan(l.net.graph, bg, analysis::given_order(bg), {spec}));
  if (!c.row_buffers) {
    l.with = plan::apply_row_loop_overlaps(l.without);
    return l;
  }
  l.without = plan::apply_row_loop_overlaps(std::move(l.without), 4, /*at_limit=*/true).plan;
  l.with = plan::apply_row_buffer_overlaps(l.without);
  return l;
}

const plan::Loop* find_overlapping_loop(const plan::Plan& p) {
  for (const plan::Step& step : p.steps) {
    if (step.is_loop() && !step.loop().overlaps.empty()) return &step.loop();
  }
  return nullptr;
}

// Empty when the limit of the overlap `o` of `loop` is exactly the replay's
// (safe at it, not one byte past it) and `o` is within it; else what is wrong.
std::string check_limit(const plan::Plan& p, const plan::Loop& loop, const plan::LoopOverlap& o) {
  const std::optional<int64_t> limit = plan::compute_row_loop_overlap_limit(p, loop, o.input, o.output);
  if (!limit) return {};  // no write before a read: the replay accepts any offset
  if (o.offset_bytes > *limit) return "offset past the limit";
  plan::LoopOverlap at = o;
  at.offset_bytes = *limit;
  if (Status ok = plan::replay_row_loop_overlap(p, loop, at); !ok) return "replay rejects the limit: " + ok.error().message;
  at.offset_bytes = *limit + 1;
  if (plan::replay_row_loop_overlap(p, loop, at)) return "replay accepts the limit + 1";
  return {};
}

// Empty when the overlapping plan runs exactly; else what went wrong.
// `declared` counts cases whose plan declares a loop overlap (row_buffers:
// one that places a row buffer).
std::string check_case(const OverlapCase& c, int& declared) {
  Result<Lowered> lowered = lower_case(c);
  if (!lowered) return "lowering: " + lowered.error().format();
  const ir::Graph& graph = lowered->net.graph;
  plan::Plan p = std::move(lowered->with.plan);
  const plan::Loop* loop = find_overlapping_loop(p);
  if (loop == nullptr || (c.row_buffers && loop->overlaps.size() < 2)) return {};
  ++declared;
  if (plan::count_plan_macs(graph, p) != ir::count_graph_macs(graph)) return "MACs differ from the graph's";
  const plan::PlanMemory before = plan::compute_plan_memory(lowered->without);
  const plan::PlanMemory after = plan::compute_plan_memory(p);
  for (size_t q = 0; q < after.live_bytes.size(); ++q) {
    if (after.live_bytes[q] > before.live_bytes[q]) return "live bytes rose at position " + std::to_string(q);
  }
  if (after.peak_bytes > before.peak_bytes) return "peak rose";
  // The closed form is the replay's limit exactly (before alignment).
  if (!plan::compute_row_loop_overlap_limit(p, *loop, loop->overlaps.front().input, loop->overlaps.front().output)) {
    return "no limit for a declared overlap";
  }
  for (const plan::LoopOverlap& o : loop->overlaps) {
    if (std::string failure = check_limit(p, *loop, o); !failure.empty()) return failure;
  }

  Result<std::vector<TensorData>> expected = run_reference(graph, lowered->net.inputs);
  if (!expected) return "reference: " + expected.error().format();
  if (Result<plan::Placement> placed = plan::place_plan(p, "greedy-by-size", {}); !placed) {
    return "placement: " + placed.error().format();
  }
  if (Status ok = plan::verify_plan(graph, p); !ok) return "verify: " + ok.error().format();
  ExecuteOptions options;
  options.check_overwrites = true;
  Result<std::vector<TensorData>> actual = execute_plan(graph, p, lowered->net.inputs, options);
  if (!actual) return "plan: " + actual.error().format();
  return testing::first_output_difference(*actual, *expected);
}

void run_random_cases(ir::DType dtype, int default_cases, bool row_buffers = false) {
  int declared = 0;
  const testing::RowSeedRun run = testing::for_each_row_seed(default_cases, [&](uint64_t seed) -> std::string {
    const OverlapCase c = make_case(seed, dtype, row_buffers);
    const std::string failure = check_case(c, declared);
    return failure.empty() ? failure : describe_case(c) + ": " + failure;
  });
  // Most loops over the chain's first operators read the model input and
  // hand their output on: the property is exercised, not skipped. A row
  // buffer needs room below an output that sits above its input's start,
  // which about 1 chain in 25 leaves (hence more cases).
  if (!run.one_seed) {
    EXPECT_GE(declared, run.cases / (row_buffers ? 50 : 4)) << "of " << run.cases << " cases";
  }
}

TEST(RowLoopOverlapExecution, RandomInt8ChainsMatchTheReferenceBitForBitUnderTheOverwriteCheck) {
  run_random_cases(ir::DType::kI8, 400);
}

TEST(RowLoopOverlapExecution, RandomFloatChainsMatchTheReferenceUnderTheOverwriteCheck) {
  run_random_cases(ir::DType::kF32, 400);
}

TEST(RowLoopOverlapExecution, RandomInt8ChainsWithRowBuffersInTheConsumedInputMatchTheReferenceBitForBit) {
  run_random_cases(ir::DType::kI8, 2000, /*row_buffers=*/true);
}

TEST(RowLoopOverlapExecution, RandomFloatChainsWithRowBuffersInTheConsumedInputMatchTheReference) {
  run_random_cases(ir::DType::kF32, 2000, /*row_buffers=*/true);
}

// Random chains whose lowering puts a row buffer in the consumed input: the
// row buffer's overlap alone (the others removed, so nothing else shares its
// bytes), moved a word past its limit, is rejected by verify_plan in every
// case; run anyway, the shadow check reports the clobbered input byte in the
// cases where a later call reads it (in the others the clobbering call reads
// the byte itself first, which only the replay sees).
TEST(RowLoopOverlapExecution, ARowBufferPastItsLimitIsRejectedAndCaughtByTheShadowCheck) {
  int moved = 0, caught = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const OverlapCase c = make_case(seed, ir::DType::kI8, /*row_buffers=*/true);
    Result<Lowered> lowered = lower_case(c);
    ASSERT_TRUE(lowered.has_value()) << lowered.error().format();
    plan::Plan p = lowered->with.plan;
    const plan::Loop* loop = find_overlapping_loop(p);
    if (loop == nullptr || loop->overlaps.size() < 2) continue;
    plan::LoopOverlap row_buffer = loop->overlaps.back();
    const std::optional<int64_t> limit = plan::compute_row_loop_overlap_limit(p, *loop, row_buffer.input, row_buffer.output);
    if (!limit) continue;
    // Past the limit by a whole word, so placement keeps the buffers aligned.
    row_buffer.offset_bytes = (*limit >= 0 ? *limit / 4 * 4 : -((-*limit + 3) / 4 * 4)) + 4;
    for (plan::Step& step : p.steps) {
      if (step.is_loop() && !step.loop().overlaps.empty()) std::get<plan::Loop>(step.what).overlaps = {row_buffer};
    }
    ++moved;
    const Status verified = plan::verify_plan(lowered->net.graph, p);
    ASSERT_FALSE(verified.has_value()) << describe_case(c) << ": verify_plan accepted a row buffer past its limit";
    EXPECT_NE(verified.error().message.find("which call"), std::string::npos) << verified.error().message;
    ASSERT_TRUE(plan::place_plan(p, "greedy-by-size", {}).has_value());
    ExecuteOptions options;
    options.check_overwrites = true;
    Result<std::vector<TensorData>> ran = execute_plan(lowered->net.graph, p, lowered->net.inputs, options);
    if (!ran && ran.error().message.find("last written for") != std::string::npos) ++caught;
  }
  EXPECT_GE(moved, 10);
  EXPECT_GE(caught, 1) << "of " << moved << " row buffers moved past their limits";
}

// A chain of 3x3 stride-1 convolutions and depthwise convolutions over 16
// rows, looped whole at tile 2: the loop reads the model input and writes
// the model output... which the caller reads, so it may overwrite the input.
// One byte past the limit, verify_plan rejects the plan, and when it runs
// anyway the shadow check names the overwritten input.
TEST(RowLoopOverlapExecution, AnOffsetPastTheLimitIsRejectedAndCaughtByTheShadowCheck) {
  OverlapCase c;
  c.chain.seed = 3;
  c.chain.operators = 3;
  c.chain.rows = 16;
  c.chain.cols = 4;
  c.first_op = 0;
  c.last_op = 2;
  c.tile = 2;
  int found = 0;
  for (uint64_t seed = 0; seed < 200 && found == 0; ++seed) {
    c.chain.seed = seed;
    Result<Lowered> lowered = lower_case(c);
    ASSERT_TRUE(lowered.has_value()) << lowered.error().format();
    plan::Plan p = lowered->with.plan;
    const plan::Loop* loop = find_overlapping_loop(p);
    if (loop == nullptr) continue;
    const plan::LoopOverlap o = loop->overlaps.front();
    const std::optional<int64_t> limit = plan::compute_row_loop_overlap_limit(p, *loop, o.input, o.output);
    ASSERT_TRUE(limit.has_value());
    // Past the limit by a whole word, so placement keeps the buffers aligned.
    const int64_t floor4 = *limit >= 0 ? *limit / 4 * 4 : -((-*limit + 3) / 4 * 4);
    const int64_t bad = floor4 + 4;
    for (plan::Step& step : p.steps) {
      if (step.is_loop() && !step.loop().overlaps.empty()) std::get<plan::Loop>(step.what).overlaps.front().offset_bytes = bad;
    }
    if (bad <= *limit) continue;
    ++found;
    const Status verified = plan::verify_plan(lowered->net.graph, p);
    ASSERT_FALSE(verified.has_value()) << "seed " << seed << ": verify_plan accepted offset " << bad << " past " << *limit;
    EXPECT_NE(verified.error().message.find("which call"), std::string::npos) << verified.error().message;
    ASSERT_TRUE(plan::place_plan(p, "greedy-by-size", {}).has_value());
    ExecuteOptions options;
    options.check_overwrites = true;
    Result<std::vector<TensorData>> ran = execute_plan(lowered->net.graph, p, lowered->net.inputs, options);
    ASSERT_FALSE(ran.has_value()) << "seed " << seed << ": the shadow check let a clobbered read through";
    EXPECT_NE(ran.error().message.find("last written for"), std::string::npos) << ran.error().message;
  }
  EXPECT_EQ(found, 1) << "no chain declared an overlap";
}

}  // namespace
}  // namespace tinyfit::exec
