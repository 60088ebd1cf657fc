// Several devices (issue 14): boxes, the k1/k2 rule, the per-device memory
// accounting, and the host verification of random conv chains split across
// random devices (int8 bit-exact against the reference interpreter, every
// device arena within its limit). One executable for the whole layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <string>

#include "devices/build_device_plan.h"
#include "devices/choose_k1k2.h"
#include "cost/cost_table.h"
#include "devices/choose_min_memory.h"
#include "devices/device_latency.h"
#include "devices/device_memory.h"
#include "devices/execute_device_plan.h"
#include "devices/part_boxes.h"
#include "devices/search_partition.h"
#include "devices/split_support.h"
#include "exec/reference_interpreter.h"
#include "support/random_row_chain.h"

namespace tinyfit::devices {
namespace {

std::vector<ir::NodeId> given_order(const ir::Graph& graph) {
  std::vector<ir::NodeId> order(graph.nodes.size());
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// Builds, places and runs `choices`; returns the plan after checking the
// outputs equal the reference's bit for bit.
DevicePlan expect_verified(const kernel_oracle::OracleCase& c, const std::vector<OperatorChoice>& choices, int n,
                           const std::string& label) {
  Result<DevicePlan> plan = build_device_plan(c.graph, choices, n);
  EXPECT_TRUE(plan.has_value()) << label << ": " << (plan ? "" : plan.error().message);
  if (!plan) return {};
  place_device_buffers(*plan);
  const auto reference = exec::run_reference(c.graph, c.inputs);
  const auto actual = execute_device_plan(c.graph, *plan, c.inputs);
  EXPECT_TRUE(reference.has_value() && actual.has_value()) << label << ": " << (actual ? "" : actual.error().message);
  if (!reference || !actual) return *plan;
  EXPECT_EQ(reference->size(), actual->size());
  for (size_t o = 0; o < reference->size() && o < actual->size(); ++o) {
    EXPECT_EQ((*reference)[o].bytes, (*actual)[o].bytes) << label << ": output " << o << " differs";
  }
  return *plan;
}

TEST(Boxes, IntersectAndBoundAreBoxArithmetic) {
  const Box a{{{0, 4}, {2, 6}}};
  const Box b{{{3, 8}, {0, 3}}};
  EXPECT_EQ(intersect_boxes(a, b), (Box{{{3, 4}, {2, 3}}}));
  EXPECT_EQ(bound_boxes(a, b), (Box{{{0, 8}, {0, 6}}}));
  EXPECT_TRUE(intersect_boxes(a, Box{{{4, 5}, {0, 9}}}).is_empty());
  EXPECT_EQ(a.count_elements(), 16);  // 4 x 4
}

TEST(SplitExtent, SharesCoverTheAxisAndDifferByAtMostOne) {
  // 10 rows over 3 devices: [0,3) [3,6) [6,10).
  EXPECT_EQ(split_extent(10, 0, 3), (ir::Range{0, 3}));
  EXPECT_EQ(split_extent(10, 1, 3), (ir::Range{3, 6}));
  EXPECT_EQ(split_extent(10, 2, 3), (ir::Range{6, 10}));
}

// A 3x3 stride-1 "same" convolution split by rows reads its rows plus one
// halo row on each inner side (MemoriaNova eq. 1: [xs*S - P, (xe-1)*S + K - P)).
TEST(PartBoxes, RowsOfAWindowReadTheirHalo) {
  row_chain::ChainSpec spec;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    spec.seed = seed;
    spec.operators = 1;
    const auto c = row_chain::make_random_row_chain(spec);
    const ir::Node& node = c.graph.nodes[0];
    if (node.op != ir::OpType::kConv2D) continue;
    const auto& a = node.attr<ir::ConvAttrs>();
    if (a.kernel_h != 3 || a.stride_h != 1 || a.dilation_h != 1 || a.pad.top != 1) continue;
    const ir::Shape& out = c.graph.output_tensor(node, 0).shape;
    const Box part = compute_part_box(out, Split::kRows, 1, 2);  // rows [6, 12) of 12
    const std::vector<Box> in = compute_input_boxes(c.graph, node, part);
    EXPECT_EQ(in[0].axes[1], (ir::Range{part.axes[1].begin - 1, std::min<int64_t>(part.axes[1].end + 1, 12)}));
    EXPECT_EQ(in[0].axes[3].size(), c.graph.input_tensor(node, 0).shape[3]);  // every input channel
    EXPECT_TRUE(in[1].axes.empty());  // weights are constants
    return;
  }
  GTEST_SKIP() << "no 3x3 same convolution among the seeds";
}

// eq. 4-5 by hand: one conv, input 1x12x4xC int8, two devices of 1 MiB: M_full
// is huge, so k1 and k2 are both above n and the rule picks by k1 < k2, which
// is M_in > M_kernel here (input bytes exceed weight bytes): cout.
TEST(ChooseK1K2, FollowsThePapersComparison) {
  row_chain::ChainSpec spec;
  spec.operators = 1;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    spec.seed = seed;
    const auto c = row_chain::make_random_row_chain(spec);
    const ir::Node& node = c.graph.nodes[0];
    if (node.op != ir::OpType::kConv2D || c.graph.output_tensor(node, 0).shape[3] < 2 ||
        c.graph.output_tensor(node, 0).shape[1] < 2) {
      continue;
    }
    const int64_t in = c.graph.input_tensor(node, 0).size_bytes();
    const int64_t kernel = c.graph.input_tensor(node, 1).size_bytes() + c.graph.input_tensor(node, 2).size_bytes();
    const int64_t out = c.graph.output_tensor(node, 0).size_bytes();
    DeviceLimits limits{{1 << 20, 1 << 20}, {}, 0};
    const int64_t full = 2 << 20;
    const int64_t k1 = (full - kernel - out) / in, k2 = (full - in - out) / kernel;
    const auto choices = choose_by_k1k2(c.graph, given_order(c.graph), limits);
    ASSERT_EQ(choices.size(), 1u);
    EXPECT_EQ(choices[0].split, k1 < k2 ? Split::kChannels : Split::kRows) << "seed " << seed;
    EXPECT_EQ(choices[0].devices.size(), 2u);
  }
}

// MemoriaNova §2.2's stages: a whole operator on one device has its input
// live in the interval before it and input + output during it.
TEST(DeviceMemory, IntervalAndExecutionStagesOfAWholeOperator) {
  row_chain::ChainSpec spec;
  spec.operators = 1;
  spec.seed = 3;
  const auto c = row_chain::make_random_row_chain(spec);
  Result<DevicePlan> plan = build_device_plan(c.graph, {{0, Split::kWhole, {0}}}, 2);
  ASSERT_TRUE(plan.has_value());
  const auto memory = compute_device_memory(*plan);
  const int64_t in = c.graph.tensor(c.graph.inputs[0]).size_bytes();
  const int64_t out = c.graph.tensor(c.graph.outputs[0]).size_bytes();
  EXPECT_EQ(memory[0].interval_stage_bytes(0), in);
  EXPECT_EQ(memory[0].execution_stage_bytes(0), in + out);
  EXPECT_EQ(memory[0].interval_stage_bytes(1), out);  // the final stage: the output only
  EXPECT_EQ(memory[1].peak_bytes, 0);
  EXPECT_EQ(plan->count_link_bytes(), 0);
}

// Every split of every operator of random chains over 2-4 devices: verified
// bit-exact, each arena within its device's limit, arena >= peak.
TEST(DevicePlanProperty, RandomChainsOnRandomDevicesMatchTheReference) {
  kernel_oracle::Random r(2026);
  int verified = 0;
  std::map<Split, int> splits;
  std::map<ExchangeKind, int> exchanges;
  for (int trial = 0; trial < 120; ++trial) {
    row_chain::ChainSpec spec;
    spec.seed = static_cast<uint64_t>(trial);
    spec.operators = static_cast<int>(r.uniform_int(1, 6));
    spec.rows = r.uniform_int(4, 14);
    spec.cols = r.uniform_int(1, 5);
    spec.max_channels = 6;
    const auto c = row_chain::make_random_row_chain(spec);
    const int n = static_cast<int>(r.uniform_int(2, 4));
    std::vector<OperatorChoice> choices;
    for (size_t i = 0; i < c.graph.nodes.size(); ++i) {
      const ir::Node& node = c.graph.nodes[i];
      const Split split = r.pick(std::vector<Split>{Split::kWhole, Split::kChannels, Split::kRows, Split::kLength});
      const int parts = static_cast<int>(r.uniform_int(2, n));
      std::vector<DeviceId> devices(static_cast<size_t>(n));
      std::iota(devices.begin(), devices.end(), 0);
      for (size_t k = devices.size(); k > 1; --k) std::swap(devices[k - 1], devices[static_cast<size_t>(r.uniform_int(0, static_cast<int64_t>(k) - 1))]);
      if (split != Split::kWhole && serves_split(c.graph, node, split, parts)) {
        devices.resize(static_cast<size_t>(parts));
        choices.push_back({static_cast<ir::NodeId>(i), split, devices});
      } else {
        choices.push_back({static_cast<ir::NodeId>(i), Split::kWhole, {devices[0]}});
      }
    }
    const std::string label = "seed " + std::to_string(trial) + ", " + std::to_string(n) + " devices";
    const DevicePlan plan = expect_verified(c, choices, n, label);
    if (::testing::Test::HasFailure()) return;
    const auto memory = compute_device_memory(plan);
    for (int d = 0; d < plan.count_devices(); ++d) {
      EXPECT_GE(plan.devices[static_cast<size_t>(d)].arena_bytes, memory[static_cast<size_t>(d)].peak_bytes) << label;
    }
    for (const OperatorChoice& choice : plan.choices) ++splits[choice.split];
    for (const Stage& stage : plan.stages) {
      for (const Transfer& t : stage.transfers) ++exchanges[t.kind];
    }
    ++verified;
  }
  EXPECT_EQ(verified, 120);
  // The trials cover every split and every kind of exchange.
  for (Split split : {Split::kWhole, Split::kChannels, Split::kRows, Split::kLength}) {
    EXPECT_GT(splits[split], split == Split::kLength ? 2 : 10) << split_name(split);
  }
  for (ExchangeKind kind : {ExchangeKind::kScatter, ExchangeKind::kGather, ExchangeKind::kHalo,
                            ExchangeKind::kRedistribute, ExchangeKind::kLocalCopy}) {
    EXPECT_GT(exchanges[kind], 5) << exchange_kind_name(kind);
  }
}

// Both choosers on random chains and random heterogeneous limits: their plans
// are verified bit-exact, and min-memory splits every operator the kernels
// can split across all devices.
TEST(Choosers, PlansOfBothChoosersMatchTheReference) {
  kernel_oracle::Random r(14);
  for (int trial = 0; trial < 40; ++trial) {
    row_chain::ChainSpec spec;
    spec.seed = 1000 + static_cast<uint64_t>(trial);
    spec.operators = static_cast<int>(r.uniform_int(1, 6));
    spec.rows = r.uniform_int(4, 14);
    const auto c = row_chain::make_random_row_chain(spec);
    DeviceLimits limits;
    const int n = static_cast<int>(r.uniform_int(2, 4));
    for (int d = 0; d < n; ++d) limits.sram_bytes.push_back(r.uniform_int(64, 4096));
    const std::string label = "seed " + std::to_string(spec.seed);
    expect_verified(c, choose_by_k1k2(c.graph, given_order(c.graph), limits), n, label + " k1k2");
    const auto choices = choose_min_memory(c.graph, given_order(c.graph), limits);
    for (const OperatorChoice& choice : choices) {
      const ir::Node& node = c.graph.nodes[static_cast<size_t>(choice.node)];
      const bool splittable = serves_split(c.graph, node, Split::kRows, n) ||
                              serves_split(c.graph, node, Split::kChannels, n) ||
                              serves_split(c.graph, node, Split::kLength, n);
      EXPECT_EQ(choice.split != Split::kWhole, splittable) << label << " node " << node.name;
    }
    expect_verified(c, choices, n, label + " min-memory");
    if (::testing::Test::HasFailure()) return;
  }
}

// --- The latency model and the latency search (search_partition.h) ---------

LatencyModel make_model(int64_t link_bytes_per_second) {
  LatencyModel model;
  model.table = *cost::find_cost_table("cortex-m4");
  model.instructions_per_second = 100e6;
  model.link_bytes_per_second = link_bytes_per_second;
  return model;
}

// Builds, places and predicts `choices`.
double predict_choices(const ir::Graph& graph, const std::vector<OperatorChoice>& choices, const DeviceLimits& limits,
                       const LatencyModel& model, PartPredictor& predictor, DevicePlan* built = nullptr) {
  Result<DevicePlan> plan = build_device_plan(graph, choices, limits.count_devices());
  EXPECT_TRUE(plan.has_value()) << (plan ? "" : plan.error().message);
  if (!plan) return 0;
  place_device_buffers(*plan);
  const Result<PlanLatency> latency = predict_plan_latency(*plan, model, predictor);
  EXPECT_TRUE(latency.has_value()) << (latency ? "" : latency.error().message);
  if (built != nullptr) *built = *plan;
  return latency ? latency->seconds : 0;
}

// A chain in the DP's exact sense: every operator reads only the previous
// one's output (the first, the graph input), and the last one's output is
// the only graph output.
bool is_plain_chain(const ir::Graph& graph) {
  ir::TensorId previous = graph.inputs.size() == 1 ? graph.inputs[0] : ir::kNoTensor;
  for (const ir::Node& node : graph.nodes) {
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!graph.has_input(node, i) || graph.input_tensor(node, i).is_constant) continue;
      if (node.inputs[i] != previous) return false;
    }
    if (node.outputs.size() != 1) return false;
    previous = node.outputs[0];
  }
  return graph.outputs.size() == 1 && graph.outputs[0] == previous;
}

// A stage's link time is its link bytes over the rate, and the plan's
// latency the sum of its stages' (link + slowest device).
TEST(DeviceLatency, StagesAddTheLinkAndTheSlowestDevice) {
  kernel_oracle::Random r(7);
  for (int trial = 0; trial < 10; ++trial) {
    row_chain::ChainSpec spec;
    spec.seed = 300 + static_cast<uint64_t>(trial);
    spec.operators = 3;
    const auto c = row_chain::make_random_row_chain(spec);
    const DeviceLimits limits{{1 << 20, 1 << 20, 1 << 20}, {}, 1000};
    const LatencyModel model = make_model(limits.link_bytes_per_second);
    PartPredictor predictor(c.graph, *model.table);
    DevicePlan plan;
    predict_choices(c.graph, choose_min_memory(c.graph, given_order(c.graph), limits), limits, model, predictor, &plan);
    const Result<PlanLatency> latency = predict_plan_latency(plan, model, predictor);
    ASSERT_TRUE(latency.has_value());
    double total = 0;
    int64_t bytes = 0;
    for (size_t s = 0; s < plan.stages.size(); ++s) {
      const StageLatency& stage = latency->stages[s];
      int64_t stage_bytes = 0;
      for (const Transfer& t : plan.stages[s].transfers) stage_bytes += t.from != t.to ? t.bytes : 0;
      EXPECT_EQ(stage.link_bytes, stage_bytes);
      EXPECT_DOUBLE_EQ(stage.link_seconds, static_cast<double>(stage_bytes) / 1000.0);
      const double slowest = *std::max_element(stage.instructions.begin(), stage.instructions.end());
      EXPECT_DOUBLE_EQ(stage.seconds, stage.link_seconds + slowest / 100e6);
      total += stage.seconds;
      bytes += stage_bytes;
    }
    EXPECT_EQ(bytes, plan.count_link_bytes());
    EXPECT_NEAR(latency->seconds, total, 1e-12 * total);
    // Every computing device predicts a positive number of instructions.
    for (const Stage& stage : plan.stages) {
      for (const PartCompute& compute : stage.computes) {
        EXPECT_GT(latency->stages[static_cast<size_t>(&stage - plan.stages.data())]
                      .instructions[static_cast<size_t>(compute.device)],
                  0.0);
      }
    }
  }
}

// The exhaustive-search oracle: on chains, with memory not binding, the DP's
// latency is the minimum of the predicted latency over every combination of
// list_operator_choices' choices, and equals its own plan's prediction.
TEST(LatencySearch, DpIsOptimalOnChainsAgainstExhaustiveSearch) {
  kernel_oracle::Random r(1414);
  int checked = 0;
  for (int trial = 0; trial < 200 && checked < 16; ++trial) {
    row_chain::ChainSpec spec;
    spec.seed = 5000 + static_cast<uint64_t>(trial);
    const int n = checked % 2 == 0 ? 2 : 3;
    spec.operators = n == 2 ? 4 : 3;
    spec.rows = r.uniform_int(4, 12);
    spec.cols = r.uniform_int(1, 4);
    spec.max_channels = 6;
    const auto c = row_chain::make_random_row_chain(spec);
    if (!is_plain_chain(c.graph)) continue;
    const DeviceLimits limits{std::vector<int64_t>(static_cast<size_t>(n), int64_t{1} << 30), {},
                              r.pick(std::vector<int64_t>{1000, 100000, 10000000})};
    const LatencyModel model = make_model(limits.link_bytes_per_second);
    PartPredictor predictor(c.graph, *model.table);
    const std::vector<ir::NodeId> order = given_order(c.graph);
    const Result<DpResult> dp = search_latency_dp(c.graph, order, limits, model, predictor, 1.0);
    ASSERT_TRUE(dp.has_value()) << dp.error().message;
    EXPECT_TRUE(dp->within_local_budget);
    const std::string label = "seed " + std::to_string(spec.seed) + ", " + std::to_string(n) + " devices";
    const double dp_plan = predict_choices(c.graph, dp->choices, limits, model, predictor);
    EXPECT_NEAR(dp->seconds, dp_plan, 1e-9 * dp_plan) << label << ": the DP's accounting differs from its plan's";

    std::vector<std::vector<OperatorChoice>> options;
    for (ir::NodeId id : order) options.push_back(list_operator_choices(c.graph, id, limits));
    std::vector<size_t> pick(options.size(), 0);
    double best = std::numeric_limits<double>::infinity();
    int plans = 0;
    while (true) {
      std::vector<OperatorChoice> choices;
      for (size_t i = 0; i < options.size(); ++i) choices.push_back(options[i][pick[i]]);
      best = std::min(best, predict_choices(c.graph, choices, limits, model, predictor));
      ++plans;
      size_t i = 0;
      while (i < pick.size() && ++pick[i] == options[i].size()) pick[i++] = 0;
      if (i == pick.size()) break;
    }
    EXPECT_GT(plans, 1) << label;
    EXPECT_NEAR(dp->seconds, best, 1e-9 * best) << label << ": the DP is not optimal over " << plans << " plans";
    if (::testing::Test::HasFailure()) return;
    ++checked;
  }
  EXPECT_EQ(checked, 16) << "too few plain chains among the seeds";
}

// Random chains (with residual Adds) on random heterogeneous devices and link
// rates: the search's plan is verified bit-exact; when some compared plan
// fits, the chosen one fits every device, and its latency is at most k1/k2's,
// min-memory's and one device's whenever those fit.
TEST(LatencySearch, PlansAreVerifiedWithinLimitsAndNoSlowerThanTheBaselines) {
  kernel_oracle::Random r(4141);
  int fitting = 0, beat_k1k2 = 0;
  for (int trial = 0; trial < 40; ++trial) {
    row_chain::ChainSpec spec;
    spec.seed = 7000 + static_cast<uint64_t>(trial);
    spec.operators = static_cast<int>(r.uniform_int(2, 7));
    spec.rows = r.uniform_int(4, 14);
    spec.cols = r.uniform_int(1, 5);
    spec.max_channels = 6;
    const auto c = row_chain::make_random_row_chain(spec);
    const int n = static_cast<int>(r.uniform_int(2, 4));
    DeviceLimits limits;
    for (int d = 0; d < n; ++d) limits.sram_bytes.push_back(r.uniform_int(48, 700));
    limits.link_bytes_per_second = r.pick(std::vector<int64_t>{1000, 125000, 1250000});
    const LatencyModel model = make_model(limits.link_bytes_per_second);
    PartPredictor predictor(c.graph, *model.table);
    const std::vector<ir::NodeId> order = given_order(c.graph);
    const std::string label = "seed " + std::to_string(spec.seed) + ", " + std::to_string(n) + " devices";
    const Result<SearchResult> searched = search_partition(c.graph, order, limits, model, predictor);
    ASSERT_TRUE(searched.has_value()) << label << ": " << searched.error().message;
    const DevicePlan plan = expect_verified(c, searched->choices, n, label + " search");
    if (::testing::Test::HasFailure()) return;
    const double seconds = predict_choices(c.graph, searched->choices, limits, model, predictor);
    const SearchCandidate& chosen = searched->candidates.at(static_cast<size_t>(searched->chosen));
    EXPECT_NEAR(chosen.seconds, seconds, 1e-12 * seconds) << label;
    const bool any_fits = std::any_of(searched->candidates.begin(), searched->candidates.end(),
                                      [](const SearchCandidate& s) { return s.fits(); });
    EXPECT_EQ(count_excess_bytes(plan, limits) == 0, any_fits) << label;
    if (any_fits) {
      ++fitting;
      for (int d = 0; d < n; ++d) {
        EXPECT_LE(plan.devices[static_cast<size_t>(d)].arena_bytes, limits.sram_bytes[static_cast<size_t>(d)]) << label;
      }
    }
    // The baselines, built and predicted here (not taken from the search's list).
    std::vector<OperatorChoice> alone;
    for (ir::NodeId id : order) alone.push_back({id, Split::kWhole, {0}});
    for (const auto& [name, choices] : {std::pair{std::string("k1k2"), choose_by_k1k2(c.graph, order, limits)},
                                        std::pair{std::string("min-memory"), choose_min_memory(c.graph, order, limits)},
                                        std::pair{std::string("one device"), alone}}) {
      DevicePlan baseline;
      const double base = predict_choices(c.graph, choices, limits, model, predictor, &baseline);
      if (count_excess_bytes(baseline, limits) > 0) continue;
      EXPECT_LE(seconds, base * (1 + 1e-12)) << label << ": slower than " << name;
      if (name == "k1k2" && seconds < base * (1 - 1e-6)) ++beat_k1k2;
    }
  }
  // The limits are drawn so that the comparison happens, and the search finds faster plans.
  EXPECT_GT(fitting, 10);
  EXPECT_GT(beat_k1k2, 3);
}

}  // namespace
}  // namespace tinyfit::devices
