// MOTES Algorithm 1 on a hand-built chain, with a latency stand-in the test
// controls (a fixed price per extra kernel call), so each rule of the search
// shows in its result.
#include "partition/motes_search.h"

#include <gtest/gtest.h>

#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

// x 1x16x16x4 -> 3x3 convolutions to 16, 16 and 4 channels (f32): the
// middle tensors are 16 KiB each, the ordinary peak is two of them.
TestGraph make_chain() {
  TestGraph g;
  ir::TensorId t = g.input({1, 16, 16, 4});
  for (int64_t channels : {16, 16, 4}) {
    const int64_t in_channels = g.graph.tensor(t).shape[3];
    t = g.node(OpType::kConv2D, {t, g.constant({channels, 3, 3, in_channels})}, make_conv_attrs(3, 1, 1));
  }
  g.output(t);
  return g;
}

constexpr double kOrdinaryLatency = 1e6;  // any positive value: only ratios matter

MotesSearchOptions make_options(double budget, double price_per_call) {
  MotesSearchOptions options;
  options.latency_budget = budget;
  options.runs_by_rows = [](const ir::Node&) { return true; };
  options.ordinary_latency = kOrdinaryLatency;
  options.scheme_latency_delta = [price_per_call](const PartitionScheme& s, const RowGeometry& g) {
    return price_per_call * static_cast<double>((g.iterations - 1) * static_cast<int64_t>(s.operators.size()) +
                                                g.copy_calls);
  };
  return options;
}

MotesSearchResult search(const TestGraph& g, const MotesSearchOptions& options) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  return search_motes_schemes(g.graph, bg, analysis::given_order(bg), options);
}

TEST(MotesSearch, WithoutALatencyBudgetTheChainRunsByRows) {
  const TestGraph g = make_chain();
  const MotesSearchResult result = search(g, make_options(kNoLatencyBudget, 1.0));
  EXPECT_EQ(result.base_peak_bytes, 2 * 16 * 16 * 16 * 4);  // both middle tensors while the second conv runs
  ASSERT_FALSE(result.schemes.empty());
  // The input and the output stay whole (4 KiB each); everything else is rows.
  EXPECT_LT(result.peak_bytes, result.base_peak_bytes / 2);
  for (const PartitionScheme& s : result.schemes) EXPECT_EQ(s.axis, PartitionAxis::kRows);
}

TEST(MotesSearch, NoStateBeyondTheLatencyBudgetIsChosen) {
  // Every extra call costs 1% of ordinary: the cheapest loop (two
  // operators, two parts) adds at least one call, so at delta 1.005 none fits.
  const TestGraph g = make_chain();
  const MotesSearchResult none = search(g, make_options(1.005, kOrdinaryLatency / 100));
  EXPECT_TRUE(none.schemes.empty());
  EXPECT_EQ(none.peak_bytes, none.base_peak_bytes);
  // At delta 1.2, some loop fits, and the chosen state stays within it.
  const MotesSearchResult some = search(g, make_options(1.2, kOrdinaryLatency / 100));
  EXPECT_FALSE(some.schemes.empty());
  EXPECT_LE(some.latency, 1.2 * kOrdinaryLatency);
  EXPECT_LT(some.peak_bytes, some.base_peak_bytes);
}

TEST(MotesSearch, UnderAMemoryBudgetTheFastestStateThatFitsWins) {
  const TestGraph g = make_chain();
  const MotesSearchResult smallest = search(g, make_options(kNoLatencyBudget, 1.0));
  MotesSearchOptions options = make_options(kNoLatencyBudget, 1.0);
  options.sram_bytes = smallest.base_peak_bytes - 1;  // any loop fits: the one with the fewest calls wins
  const MotesSearchResult fitting = search(g, options);
  EXPECT_LE(fitting.peak_bytes, *options.sram_bytes);
  EXPECT_LE(fitting.latency, smallest.latency);
  EXPECT_GE(fitting.peak_bytes, smallest.peak_bytes);
}

TEST(MotesSearch, OperatorsTheRuntimeCannotRunByRowsStayWhole) {
  const TestGraph g = make_chain();
  MotesSearchOptions options = make_options(kNoLatencyBudget, 1.0);
  options.runs_by_rows = [](const ir::Node&) { return false; };
  EXPECT_TRUE(search(g, options).schemes.empty());
}

// x 1x16x16x8 -> 3x3 conv to 8 channels -> 3x3 conv to 1 channel (f32):
// a loop over both reads the image x (8 KiB) and writes y (1 KiB), which its
// lowering places over x's consumed rows (row_loop_overlap_estimate_test
// derives the limit, 448 bytes, by hand). Scored with the overlap, the
// search sees that state 1 KiB smaller.
TEST(MotesSearch, ScoringWithRowLoopOverlapsSubtractsWhatTheLoopsOutputShares) {
  TestGraph g;
  const ir::TensorId x = g.input({1, 16, 16, 8});
  const ir::TensorId a = g.node(OpType::kConv2D, {x, g.constant({8, 3, 3, 8})}, make_conv_attrs(3, 1, 1));
  g.output(g.node(OpType::kConv2D, {a, g.constant({1, 3, 3, 8})}, make_conv_attrs(3, 1, 1)));
  const MotesSearchResult without = search(g, make_options(kNoLatencyBudget, 1.0));
  MotesSearchOptions options = make_options(kNoLatencyBudget, 1.0);
  options.row_overlaps = true;
  const MotesSearchResult with = search(g, options);
  EXPECT_EQ(with.base_peak_bytes, without.base_peak_bytes);  // no loop, no overlap
  ASSERT_FALSE(without.schemes.empty());
  ASSERT_FALSE(with.schemes.empty());
  EXPECT_LE(with.peak_bytes, without.peak_bytes - 16 * 16 * 1 * 4);
}

// t = conv(x) is read by two preprocessings (a sigmoid and a 1x1
// convolution to 4 channels, then a hard-swish and another), with a 3x3
// convolution the runtime cannot run by rows (w, 16 KiB) between them: while
// t waits for the second one, w's step holds t, p and w (36 KiB) whatever
// loops the stretches make. Only a loop that also runs the second
// preprocessing (split_input_readers.h) consumes t before w.
TEST(MotesSearch, LoopsWithTheLaterReadersOfTheirInputsConsumeIt) {
  TestGraph g;
  const ir::TensorId x = g.input({1, 16, 16, 4});
  const ir::TensorId t = g.node(OpType::kConv2D, {x, g.constant({16, 3, 3, 4})}, make_conv_attrs(3, 1, 1));
  const ir::TensorId p =
      g.node(OpType::kConv2D, {g.node(OpType::kSigmoid, {t}), g.constant({4, 1, 1, 16})}, make_conv_attrs(1));
  const ir::TensorId w = g.node(OpType::kConv2D, {p, g.constant({16, 3, 3, 4})}, make_conv_attrs(3, 1, 1));
  const ir::TensorId u = g.node(OpType::kConv2D, {w, g.constant({4, 1, 1, 16})}, make_conv_attrs(1));
  const ir::TensorId q =
      g.node(OpType::kConv2D, {g.node(OpType::kHardSwish, {t}), g.constant({4, 1, 1, 16})}, make_conv_attrs(1));
  g.output(g.node(OpType::kAdd, {u, q}));
  MotesSearchOptions options = make_options(kNoLatencyBudget, 1.0);
  options.runs_by_rows = [w](const ir::Node& n) { return n.outputs.front() != w; };
  const MotesSearchResult without = search(g, options);
  constexpr int64_t kWide = 16 * 16 * 16 * 4, kNarrow = 16 * 16 * 4 * 4;  // t, w; p
  EXPECT_EQ(without.peak_bytes, 2 * kWide + kNarrow);
  options.split_input_readers = true;
  const MotesSearchResult with = search(g, options);
  // t dies in the loop: what is left is p and q (4 KiB each) and the bands.
  EXPECT_LT(with.peak_bytes, kWide + 3 * kNarrow);
  // The loop that does it is no stretch of the order: it skips w and u.
  bool skips = false;
  for (const PartitionScheme& scheme : with.schemes) {
    skips = skips || scheme.operators.back() - scheme.operators.front() + 1 > std::ssize(scheme.operators);
  }
  EXPECT_TRUE(skips);
}

}  // namespace
}  // namespace tinyfit::partition
