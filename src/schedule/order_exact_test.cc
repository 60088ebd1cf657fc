#include "schedule/order_exact.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "analysis/lower_bound.h"
#include "schedule/order_hierarchical.h"
#include "schedule/order_peak.h"
#include "support/plain_dp_oracle.h"
#include "support/random_dag.h"
#include "support/random_inplace_dag.h"

namespace tinyfit::schedule {
namespace {

using analysis::BufferGraph;
using analysis::compute_memory_profile;
using testing::expect_on_random_dags;

int64_t peak_of(const BufferGraph& bg, const Order& order) { return compute_memory_profile(bg, order).peak_bytes; }

// Brute force is affordable up to this many topological orders (x 12 steps each).
constexpr int64_t kBruteForceOrders = 200'000;

TEST(OrderExact, EqualsBruteForceOnRandomDags) {
  int compared = 0;
  expect_on_random_dags(400, 12, [&](const BufferGraph& bg) -> std::string {
    if (testing::count_topological_orders(bg) > kBruteForceOrders) return "";
    ++compared;
    const OrderResult r = order_exact(bg, OrderOptions{});
    const int64_t brute = testing::compute_brute_force_min_peak(bg);
    if (!analysis::is_topological_order(bg, r.order)) return "not a topological order";
    if (r.peak_bytes != peak_of(bg, r.order)) return "reported peak differs from the profile of the order";
    if (!r.optimal) return "not marked optimal without any limit: " + r.note;
    if (r.peak_bytes != brute) {
      return "exact peak " + std::to_string(r.peak_bytes) + " != brute force " + std::to_string(brute);
    }
    return "";
  });
  if (!::testing::Test::HasFailure()) {
    EXPECT_GT(compared, 300);  // most samples are small enough to compare
  }
}

// Cells that read the two cells before them (NASNet, DARTS, AmoebaNet): no
// sequential cut between cells, and the optimum may interleave them.
TEST(OrderExact, EqualsBruteForceOnNasStyleCells) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const BufferGraph bg = testing::make_nas_cells(seed, 2 + static_cast<int>(seed % 2), 1 + static_cast<int>(seed % 2));
    if (bg.operators.size() > 13 || testing::count_topological_orders(bg) > kBruteForceOrders) continue;
    ++compared;
    const OrderResult r = order_exact(bg, OrderOptions{});
    ASSERT_TRUE(analysis::is_topological_order(bg, r.order)) << "seed " << seed;
    ASSERT_TRUE(r.optimal) << "seed " << seed << ": " << r.note;
    ASSERT_EQ(r.peak_bytes, testing::compute_brute_force_min_peak(bg)) << "seed " << seed << "\n"
                                                                        << testing::describe_graph(bg);
  }
  EXPECT_GT(compared, 100);
}

// 7 cells of 2-3 nodes (36 to 64 operators; the oracle's sets are 64 bits):
// the plain dynamic programme over every operator set is the oracle.
TEST(OrderExact, EqualsThePlainDynamicProgrammeOnSevenNasStyleCells) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const BufferGraph bg = testing::make_nas_cells(seed, 7, 2 + static_cast<int>(seed % 2));
    if (bg.operators.size() > 64) continue;
    ++compared;
    const OrderResult r = order_exact(bg, OrderOptions{});
    EXPECT_TRUE(r.optimal) << "seed " << seed << ": " << r.note;
    EXPECT_EQ(r.peak_bytes, testing::compute_plain_dp_min_peak(bg)) << "seed " << seed;
  }
  EXPECT_GE(compared, 10);
}

// 60 cells: one segment of several hundred operators, far beyond the old
// 128-operator limit, searched to the end like the NAS zoo networks.
TEST(OrderExact, ProvesSegmentsOfHundredsOfNasStyleOperators) {
  const BufferGraph bg = testing::make_nas_cells(/*seed=*/9, /*cells=*/60, /*nodes=*/3);
  ASSERT_GT(bg.operators.size(), 300u);
  const OrderResult r = order_exact(bg, OrderOptions{});
  EXPECT_TRUE(analysis::is_topological_order(bg, r.order));
  EXPECT_TRUE(r.optimal) << r.note;
  EXPECT_LE(r.peak_bytes, peak_of(bg, order_hierarchical(bg, false)));
  EXPECT_EQ(r.lower_bound_bytes, r.peak_bytes);
}

TEST(OrderExact, NeverAboveHierarchicalWhichIsNeverAboveGiven) {
  expect_on_random_dags(300, 40, [](const BufferGraph& bg) -> std::string {
    const int64_t given = peak_of(bg, analysis::given_order(bg));
    const int64_t hierarchical = peak_of(bg, order_hierarchical(bg, false));
    const OrderResult exact = order_exact(bg, OrderOptions{});
    if (!analysis::is_topological_order(bg, exact.order)) return "exact order is not topological";
    if (hierarchical > given) return "hierarchical " + std::to_string(hierarchical) + " > given " + std::to_string(given);
    if (exact.peak_bytes > hierarchical) {
      return "exact " + std::to_string(exact.peak_bytes) + " > hierarchical " + std::to_string(hierarchical);
    }
    return "";
  });
}

TEST(OrderExact, LowerBoundNeverExceedsTheExactPeak) {
  expect_on_random_dags(300, 30, [](const BufferGraph& bg) -> std::string {
    const int64_t bound = analysis::compute_peak_lower_bound(bg, false).bytes;
    const OrderResult exact = order_exact(bg, OrderOptions{});
    if (bound > exact.peak_bytes) {
      return "lower bound " + std::to_string(bound) + " > exact " + std::to_string(exact.peak_bytes);
    }
    return "";
  });
}

// The joint model: every topological order with every admissible in-place
// overwrite (analysis/inplace.h), by brute force from the rule itself
// (support/random_inplace_dag.h), on graphs of up to 10 operators whose
// element-wise and depthwise operators (some shrinking: a choice that costs
// later) make the overwrites matter.
constexpr int64_t kBruteForceInplaceOrders = 20'000;

TEST(OrderExactInPlace, EqualsBruteForceOverEveryOrderAndEveryOverwrite) {
  int compared = 0;
  int lowered = 0;  // graphs where in-place lowers the exact peak: the property is not vacuous
  const testing::GraphMaker maker{"make_random_inplace_dag", testing::make_random_inplace_dag};
  testing::expect_on_random_graphs(300, 10, maker, [&](const BufferGraph& bg) -> std::string {
    if (testing::count_topological_orders(bg) > kBruteForceInplaceOrders) return "";
    ++compared;
    OrderOptions options;
    options.inplace = true;
    const OrderResult r = order_exact(bg, options);
    if (!analysis::is_topological_order(bg, r.order)) return "not a topological order";
    if (!r.optimal) return "not marked optimal without any limit: " + r.note;
    std::string why_not;
    const int64_t by_rule = testing::compute_inplace_peak_by_rule(bg, r.order, r.inplace_choices, why_not);
    if (!why_not.empty()) return "its overwrites break the rule: " + why_not;
    if (by_rule != r.peak_bytes) {
      return "reported peak " + std::to_string(r.peak_bytes) + " != " + std::to_string(by_rule) + " by the rule";
    }
    const int64_t brute = testing::compute_brute_force_min_inplace_peak(bg);
    if (r.peak_bytes != brute) {
      return "exact+inplace peak " + std::to_string(r.peak_bytes) + " != brute force " + std::to_string(brute);
    }
    // The bound by which the heuristics claim "optimal" with in-place.
    const int64_t bound = analysis::compute_peak_lower_bound(bg, true).bytes;
    if (bound > brute) return "lower bound " + std::to_string(bound) + " > brute force " + std::to_string(brute);
    if (brute < order_exact(bg, OrderOptions{}).peak_bytes) ++lowered;
    return "";
  });
  if (!::testing::Test::HasFailure()) {
    EXPECT_GT(compared, 250);  // most samples are small enough to compare
    EXPECT_GT(lowered, 50);
  }
}

// The same on NAS-style cells, whose optimum may interleave cells: half of
// the operators (the edges and nodes) get element-wise options.
TEST(OrderExactInPlace, NeverAboveItsHeuristicsAndProvedOnNasStyleCellsWithOverwrites) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    BufferGraph bg = testing::make_nas_cells(seed, 6, 2 + static_cast<int>(seed % 2));
    bg.inplace_options.assign(bg.operators.size(), {});
    for (size_t v = 0; v < bg.operators.size(); ++v) {
      const analysis::Operator& op = bg.operators[v];
      const int in = op.inputs.front();
      if (v % 2 == 1 || op.outputs.size() != 1 || bg.buffers[static_cast<size_t>(in)].producer < 0) continue;
      bg.buffers[static_cast<size_t>(op.outputs[0])].bytes = bg.buffers[static_cast<size_t>(in)].bytes;
      bg.inplace_options[v].push_back({in, 0});
    }
    OrderOptions options;
    options.inplace = true;
    const OrderResult r = order_exact(bg, options);
    ASSERT_TRUE(analysis::is_topological_order(bg, r.order)) << "seed " << seed;
    EXPECT_TRUE(r.optimal) << "seed " << seed << ": " << r.note;
    EXPECT_EQ(r.peak_bytes, compute_order_peak(bg, r.order, r.inplace_choices)) << "seed " << seed;
    for (const Order& heuristic : {analysis::given_order(bg), order_hierarchical(bg, true)}) {
      EXPECT_LE(r.peak_bytes, score_order(bg, heuristic, true).peak_bytes) << "seed " << seed;
    }
    EXPECT_LE(r.peak_bytes, order_exact(bg, OrderOptions{}).peak_bytes) << "seed " << seed;
    EXPECT_LE(r.lower_bound_bytes, r.peak_bytes) << "seed " << seed;
  }
}

TEST(OrderExactInPlace, ABoundedSearchStillReturnsItsOverwritesAndSaysItIsNotProven) {
  BufferGraph bg = testing::make_randwire(/*seed=*/5, /*nodes=*/24, /*cells=*/2, /*k=*/4, /*p=*/0.75);
  bg.inplace_options.assign(bg.operators.size(), {});
  for (size_t v = 0; v < bg.operators.size(); ++v) {  // RandWire nodes sum their inputs: element-wise
    for (int b : bg.operators[v].inputs) {
      const analysis::Buffer& input = bg.buffers[static_cast<size_t>(b)];
      if (input.producer >= 0 && input.bytes == bg.buffers[static_cast<size_t>(bg.operators[v].outputs[0])].bytes) {
        bg.inplace_options[v].push_back({b, 0});
      }
    }
  }
  OrderOptions options;
  options.inplace = true;
  options.max_states_per_segment = 200;
  const OrderResult r = order_exact(bg, options);
  EXPECT_TRUE(analysis::is_topological_order(bg, r.order));
  EXPECT_EQ(r.inplace_choices.size(), bg.operators.size());
  EXPECT_EQ(r.peak_bytes, compute_order_peak(bg, r.order, r.inplace_choices));
  EXPECT_LE(r.peak_bytes, score_order(bg, analysis::given_order(bg), true).peak_bytes);
  EXPECT_FALSE(r.optimal) << r.note;
  EXPECT_NE(r.note.find("cap of 200 states"), std::string::npos) << r.note;
}

// in(10) -> A -> a(10), read by both branches, which meet at J -> out(1).
//   big branch X:   X1: a -> x1(100),  X2: x1 -> x2(1)
//   small branch Y: Y1: a -> y1(20),   Y2: y1 -> y2(30)
// Given order A Y1 Y2 X1 X2 J: at X1, a + y2 + x1 = 10 + 30 + 100 = 140 (peak).
// Big branch first, A X1 X2 Y1 Y2 J:
//   A 20 | X1 a+x1 = 110 | X2 a+x1+x2 = 111 | Y1 a+x2+y1 = 31 | Y2 x2+y1+y2 = 51 | J x2+y2+out = 32
// so 111; every interleaving has a step with a + x1 + y1 = 130. The per-operator
// lower bound is X1's a + x1 = 110, so 111 is proven by the search, not the bound.
BufferGraph make_diamond_with_big_and_small_branch() {
  BufferGraph bg;
  bg.buffers = {{10, -1, {}, false, "in"}, {10, 0, {}, false, "a"},  {20, 1, {}, false, "y1"},
                {30, 2, {}, false, "y2"},  {100, 3, {}, false, "x1"}, {1, 4, {}, false, "x2"},
                {1, 5, {}, true, "out"}};
  bg.operators = {{"A", {0}, {1}, 0, 0},  {"Y1", {1}, {2}, 0, 1}, {"Y2", {2}, {3}, 0, 2},
                  {"X1", {1}, {4}, 0, 3}, {"X2", {4}, {5}, 0, 4}, {"J", {5, 3}, {6}, 0, 5}};
  testing::fill_consumers(bg);
  return bg;
}

TEST(OrderExact, DiamondRunsTheBigBranchFirst) {
  const BufferGraph bg = make_diamond_with_big_and_small_branch();
  EXPECT_EQ(peak_of(bg, analysis::given_order(bg)), 140);
  const OrderResult r = order_exact(bg, OrderOptions{});
  EXPECT_EQ(r.peak_bytes, 111);
  EXPECT_TRUE(r.optimal) << r.note;
  EXPECT_EQ(r.order, (Order{0, 3, 4, 1, 2, 5}));
}

TEST(OrderExact, LongChainIsSolvedCutByCutInLinearTime) {
  // in -> op0 -> b0 -> op1 -> ... -> op9999 -> out; every operator is a cut.
  constexpr int kOps = 10'000;
  BufferGraph bg;
  bg.buffers.push_back({7, -1, {}, false, "in"});
  for (int v = 0; v < kOps; ++v) {
    bg.buffers.push_back({1 + v % 13, v, {}, v == kOps - 1, "b" + std::to_string(v)});
    bg.operators.push_back({"op" + std::to_string(v), {v}, {v + 1}, v % 5, v});
  }
  testing::fill_consumers(bg);
  const auto start = std::chrono::steady_clock::now();
  const OrderResult r = order_exact(bg, OrderOptions{});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ timing ] chain of %d operators: %.3f s, %s\n", kOps, seconds, r.note.c_str());
  EXPECT_EQ(r.order, analysis::given_order(bg));  // the only topological order
  EXPECT_TRUE(r.optimal);
}

TEST(OrderExact, RandWireCellsFinishWithinTheTimeLimitAndSayIfOptimal) {
  // 3 cells of WS(32, 4, 0.75) (RandWire's WS setting), 99 operators.
  const BufferGraph bg = testing::make_randwire(/*seed=*/2024, /*nodes=*/32, /*cells=*/3, /*k=*/4, /*p=*/0.75);
  ASSERT_EQ(bg.operators.size(), 99u);
  OrderOptions options;
  options.deadline = Deadline(std::chrono::seconds(20));
  const auto start = std::chrono::steady_clock::now();
  const OrderResult r = order_exact(bg, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const int64_t given = peak_of(bg, analysis::given_order(bg));
  const int64_t hierarchical = peak_of(bg, order_hierarchical(bg, false));
  std::printf("[ timing ] randwire 3x32: %.3f s, optimal=%d, peak %lld (given %lld, hierarchical %lld, bound %lld)\n"
              "           %s\n",
              seconds, r.optimal ? 1 : 0, static_cast<long long>(r.peak_bytes), static_cast<long long>(given),
              static_cast<long long>(hierarchical),
              static_cast<long long>(analysis::compute_peak_lower_bound(bg, false).bytes), r.note.c_str());
  EXPECT_TRUE(analysis::is_topological_order(bg, r.order));
  EXPECT_LE(r.peak_bytes, hierarchical);
  EXPECT_LE(hierarchical, given);
  EXPECT_FALSE(r.note.empty());
}

// 20 independent branches of three steps with unrelated sizes between one input
// and one join: about 4^20 operator sets, far beyond 50 ms.
BufferGraph make_wide_graph() {
  testing::TestRandom rng(77);
  BufferGraph bg;
  bg.buffers.push_back({5, -1, {}, false, "in"});
  std::vector<int> ends;
  for (int branch = 0; branch < 20; ++branch) {
    int from = 0;
    for (int step = 0; step < 3; ++step) {
      const int op = static_cast<int>(bg.operators.size());
      bg.buffers.push_back({rng.uniform(1, 100), op, {}, false, "b"});
      bg.operators.push_back({"op", {from}, {static_cast<int>(bg.buffers.size()) - 1}, rng.uniform(0, 40), op});
      from = static_cast<int>(bg.buffers.size()) - 1;
    }
    ends.push_back(from);
  }
  const int join = static_cast<int>(bg.operators.size());
  bg.buffers.push_back({1, join, {}, true, "out"});
  bg.operators.push_back({"join", ends, {static_cast<int>(bg.buffers.size()) - 1}, 0, join});
  testing::fill_consumers(bg);
  return bg;
}

TEST(OrderExact, ReturnsAValidNonOptimalOrderWhenTheDeadlineExpires) {
  const BufferGraph bg = make_wide_graph();
  OrderOptions options;
  options.deadline = Deadline(std::chrono::milliseconds(50));
  const OrderResult r = order_exact(bg, options);
  EXPECT_TRUE(analysis::is_topological_order(bg, r.order));
  EXPECT_FALSE(r.optimal) << r.note;
  EXPECT_NE(r.note.find("time limit"), std::string::npos) << r.note;
  EXPECT_LE(r.peak_bytes, peak_of(bg, order_hierarchical(bg, false)));
  EXPECT_LE(r.peak_bytes, peak_of(bg, analysis::given_order(bg)));
}

TEST(OrderExact, StopsAtTheStateCapWithTheBestOrderFound) {
  const BufferGraph bg = make_wide_graph();
  OrderOptions options;
  options.max_states_per_segment = 1000;
  const OrderResult r = order_exact(bg, options);
  EXPECT_TRUE(analysis::is_topological_order(bg, r.order));
  EXPECT_FALSE(r.optimal);
  EXPECT_NE(r.note.find("cap of 1000 states"), std::string::npos) << r.note;
}

TEST(OrderExact, SegmentsAboveTheOperatorLimitFallBackToTheBeamAndSaySo) {
  const BufferGraph bg = make_wide_graph();  // one segment of 60 branch operators + the join
  OrderOptions options;
  options.max_exact_segment_ops = 10;
  const OrderResult r = order_exact(bg, options);
  EXPECT_TRUE(analysis::is_topological_order(bg, r.order));
  EXPECT_LE(r.peak_bytes, peak_of(bg, order_hierarchical(bg, false)));
  EXPECT_FALSE(r.optimal);
  EXPECT_NE(r.note.find("above the exact limit of 10 operators"), std::string::npos) << r.note;
}

TEST(OrderExact, ReportsMonotoneProgressEndingAtOne) {
  const BufferGraph bg = testing::make_randwire(7, 12, 3, 4, 0.75);
  std::vector<double> seen;
  OrderOptions options;
  options.progress = [&](double f) { seen.push_back(f); };
  order_exact(bg, options);
  ASSERT_FALSE(seen.empty());
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1], seen[i]);
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
}

TEST(OrderExact, SameInputGivesTheSameOrder) {
  const BufferGraph bg = testing::make_randwire(11, 16, 2, 4, 0.75);
  EXPECT_EQ(order_exact(bg, OrderOptions{}).order, order_exact(bg, OrderOptions{}).order);
}

}  // namespace
}  // namespace tinyfit::schedule
