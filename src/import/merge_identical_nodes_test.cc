#include "import/merge_identical_nodes.h"

#include <gtest/gtest.h>

#include "support/test_graph.h"

namespace tinyfit::import {
namespace {

// A NAS cell's branches: three ReLUs of x (two identical, one clamping at 6),
// each read by its own depthwise convolution, the sums added. The identical
// ReLU goes, its depthwise reads the first one's output; the Relu6 stays.
TEST(MergeIdenticalNodes, ReadersOfATwinReadTheFirstNodesOutput) {
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  const ir::TensorId w = g.constant({1, 3, 3, 4});
  const ir::TensorId r1 = g.node(ir::OpType::kClip, {x}, ir::ClipAttrs{0.0f});
  const ir::TensorId r2 = g.node(ir::OpType::kClip, {x}, ir::ClipAttrs{0.0f});
  const ir::TensorId r6 = g.node(ir::OpType::kClip, {x}, ir::ClipAttrs{0.0f, 6.0f});
  const ir::TensorId d1 = g.node(ir::OpType::kDepthwiseConv2D, {r1, w}, testing::make_conv_attrs(3, 1, 1));
  const ir::TensorId d2 = g.node(ir::OpType::kDepthwiseConv2D, {r2, w}, testing::make_conv_attrs(3, 1, 1));
  const ir::TensorId d6 = g.node(ir::OpType::kDepthwiseConv2D, {r6, w}, testing::make_conv_attrs(3, 1, 1));
  g.output(g.node(ir::OpType::kAdd, {g.node(ir::OpType::kAdd, {d1, d2}), d6}));
  for (ir::Node& n : g.graph.nodes) n.source_nodes = {n.name};
  merge_identical_nodes(g.graph);
  // r2 goes; then d2 reads r1 with d1's weights and attributes: it goes too,
  // and the first Add adds d1 to itself.
  ASSERT_EQ(g.graph.nodes.size(), 6u);
  EXPECT_EQ(g.graph.nodes[0].source_nodes, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(g.graph.nodes[1].name, "n2");
  EXPECT_EQ(g.graph.nodes[2].source_nodes, (std::vector<std::string>{"n3", "n4"}));
  EXPECT_EQ(g.graph.nodes[4].inputs[0], g.graph.nodes[4].inputs[1]);
}

// Nodes that differ in anything that changes their values stay apart: the
// attributes, the fused activation, the weights, the output quantisation.
TEST(MergeIdenticalNodes, NodesThatDifferStayApart) {
  testing::TestGraph g;
  g.dtype = ir::DType::kI8;
  const ir::TensorId x = g.input({1, 8, 8, 4});
  const ir::TensorId w1 = g.constant({1, 3, 3, 4});
  const ir::TensorId w2 = g.constant({1, 3, 3, 4});
  std::vector<ir::TensorId> outs;
  outs.push_back(g.node(ir::OpType::kDepthwiseConv2D, {x, w1}, testing::make_conv_attrs(3, 1, 1)));
  outs.push_back(g.node(ir::OpType::kDepthwiseConv2D, {x, w2}, testing::make_conv_attrs(3, 1, 1)));
  outs.push_back(g.node(ir::OpType::kDepthwiseConv2D, {x, w1}, testing::make_conv_attrs(3, 2, 1)));
  outs.push_back(g.node(ir::OpType::kDepthwiseConv2D, {x, w1}, testing::make_conv_attrs(3, 1, 1)));
  g.graph.nodes.back().activation.min = 0.0f;
  outs.push_back(g.node(ir::OpType::kDepthwiseConv2D, {x, w1}, testing::make_conv_attrs(3, 1, 1)));
  for (ir::TensorId t : outs) g.graph.tensor(t).quant = ir::QuantParams{{0.5f}, {0}, 0};
  g.graph.tensor(outs.back()).quant = ir::QuantParams{{0.25f}, {0}, 0};
  for (ir::TensorId t : outs) g.output(t);
  merge_identical_nodes(g.graph);
  EXPECT_EQ(g.graph.nodes.size(), 5u);
}

// A twin whose output is a graph output keeps it: each graph output has its
// own tensor.
TEST(MergeIdenticalNodes, ATwinWritingAGraphOutputStays) {
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 4, 4, 2});
  g.output(g.node(ir::OpType::kClip, {x}, ir::ClipAttrs{0.0f}));
  g.output(g.node(ir::OpType::kClip, {x}, ir::ClipAttrs{0.0f}));
  merge_identical_nodes(g.graph);
  EXPECT_EQ(g.graph.nodes.size(), 2u);
  EXPECT_NE(g.graph.outputs[0], g.graph.outputs[1]);
}

// Two identical kept nodes (the second writes a graph output): a third twin
// merges into the first, never into the output's node.
TEST(MergeIdenticalNodes, ALaterTwinMergesIntoTheFirstKeptNode) {
  testing::TestGraph g;
  const ir::TensorId x = g.input({1, 4, 4, 2});
  const ir::TensorId r1 = g.node(ir::OpType::kClip, {x}, ir::ClipAttrs{0.0f});
  g.output(g.node(ir::OpType::kClip, {x}, ir::ClipAttrs{0.0f}));
  const ir::TensorId r3 = g.node(ir::OpType::kClip, {x}, ir::ClipAttrs{0.0f});
  g.output(g.node(ir::OpType::kAdd, {r1, r3}));
  merge_identical_nodes(g.graph);
  ASSERT_EQ(g.graph.nodes.size(), 3u);
  EXPECT_EQ(g.graph.nodes[2].inputs, (std::vector<ir::TensorId>{r1, r1}));
}

}  // namespace
}  // namespace tinyfit::import
