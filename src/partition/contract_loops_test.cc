// The fine-grained graph of MOTES Algorithm 1: loops contracted to one
// operator each, on hand-built graphs whose memory is worked out by hand.
#include "partition/contract_loops.h"

#include <gtest/gtest.h>

#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

// x -> a -> b -> c -> output, and a side operator d reading a (f32, 1x4x4x4:
// 256 bytes per tensor). Operators: a 0, b 1, d 2, c 3.
TestGraph make_chain_with_side_reader() {
  TestGraph g;
  auto conv = [&g](ir::TensorId x) {
    return g.node(OpType::kConv2D, {x, g.constant({4, 1, 1, 4})}, make_conv_attrs(1));
  };
  const ir::TensorId a = conv(g.input({1, 4, 4, 4}));
  const ir::TensorId b = conv(a);
  g.output(conv(a));  // d
  g.output(conv(b));  // c
  return g;
}

TEST(ContractLoops, ALoopReadsItsInputsAndWritesItsOutputsWhole) {
  // Loop {b, c}: reads a, writes c; nothing of it stays inside but its
  // internal bytes (100, a stand-in). Buffers x, a, d, c survive; b is gone.
  const TestGraph g = make_chain_with_side_reader();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const ContractedGraph cg = contract_loops(bg, {{{1, 3}, 100, "loop"}});
  ASSERT_EQ(cg.graph.operators.size(), 3u);  // a, d, loop (given keys 0, 2, 3)
  EXPECT_EQ(cg.loop_of, (std::vector<int>{-1, -1, 0}));
  EXPECT_EQ(cg.graph.buffers.size(), 4u);
  EXPECT_EQ(cg.buffer_of[2], -1);  // b's buffer (x 0, a 1, b 2, d 3, c 4)
  const analysis::Operator& loop = cg.graph.operators[2];
  EXPECT_EQ(loop.workspace_bytes, 100);
  EXPECT_EQ(loop.inputs, (std::vector<int>{cg.buffer_of[1]}));
  EXPECT_EQ(loop.outputs, (std::vector<int>{cg.buffer_of[4]}));
  EXPECT_EQ(loop.node, -1);
  // While the loop runs: a (its input), d (a model output made before it),
  // c (its output) and its internal bytes.
  const analysis::MemoryProfile profile = analysis::compute_memory_profile(cg.graph, analysis::given_order(cg.graph));
  EXPECT_EQ(profile.steps[2].execution_bytes, 256 + 256 + 256 + 100);  // a, d (model output), c, internals
}

TEST(ContractLoops, OperatorsThatReadALoopMoveAfterIt) {
  // Loop {a, b} in the order a, d, b, c: d reads a, which the loop makes,
  // so it runs after the loop though it ran between the loop's operators.
  const TestGraph g = make_chain_with_side_reader();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const ContractedGraph cg = contract_loops(bg, {{{0, 1}, 0, "loop"}});
  const analysis::Order order = contract_order(bg, cg, {0, 2, 1, 3});
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0], cg.operator_of[0]);  // the loop, where b ran
  EXPECT_EQ(order[1], cg.operator_of[2]);  // d
  EXPECT_EQ(order[2], cg.operator_of[3]);  // c
  EXPECT_TRUE(analysis::is_topological_order(cg.graph, order));
}

TEST(ContractLoops, AnOrderOfTheContractedGraphExpandsWithEachLoopConsecutive) {
  // Loop {b, c} (operators 1 and 3, d = 2 between them in bg's order): the
  // contracted order a, loop, d expands to a, b, c, d.
  const TestGraph g = make_chain_with_side_reader();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  const std::vector<LoopSummary> loops = {{{1, 3}, 0, "loop"}};
  const ContractedGraph cg = contract_loops(bg, loops);
  const analysis::Order expanded = expand_order(cg, loops, {cg.operator_of[0], cg.operator_of[1], cg.operator_of[2]});
  EXPECT_EQ(expanded, (analysis::Order{0, 1, 3, 2}));
  EXPECT_TRUE(analysis::is_topological_order(bg, expanded));
}

TEST(ContractLoops, OperatorsOutsideLoopsKeepTheirInPlaceOptions) {
  // x -> conv a -> Sigmoid s -> conv c: s may overwrite a. With c a loop of
  // its own, s keeps that option (on a's contracted buffer); the loop has none.
  TestGraph g;
  const ir::TensorId a = g.node(OpType::kConv2D, {g.input({1, 4, 4, 4}), g.constant({4, 1, 1, 4})}, make_conv_attrs(1));
  const ir::TensorId s = g.node(OpType::kSigmoid, {a});
  g.output(g.node(OpType::kConv2D, {s, g.constant({4, 1, 1, 4})}, make_conv_attrs(1)));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  ASSERT_EQ(analysis::list_inplace_options_of(bg, 1).size(), 1u);
  const ContractedGraph cg = contract_loops(bg, {{{2}, 0, "loop"}});
  const auto options = analysis::list_inplace_options_of(cg.graph, cg.operator_of[1]);
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(options[0].input_buffer, cg.buffer_of[static_cast<size_t>(bg.buffer_of_tensor[static_cast<size_t>(a)])]);
  EXPECT_TRUE(analysis::list_inplace_options_of(cg.graph, cg.operator_of[2]).empty());
  // The choice maps back to bg's buffer of a.
  analysis::InplaceChoices choices(cg.graph.operators.size(), -1);
  choices[static_cast<size_t>(cg.operator_of[1])] = options[0].input_buffer;
  const analysis::InplaceChoices expanded = expand_inplace_choices(cg, choices);
  EXPECT_EQ(expanded, (analysis::InplaceChoices{-1, bg.buffer_of_tensor[static_cast<size_t>(a)], -1}));
}

}  // namespace
}  // namespace tinyfit::partition
