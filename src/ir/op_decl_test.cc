// Each declaration on hand-computed cases: shapes, MACs, kind, axis maps.
#include "ir/op_decl.h"

#include <gtest/gtest.h>

#include "ir/verify_graph.h"

namespace tinyfit::ir {
namespace {

// A tiny graph builder for declaration tests: activations are f32.
struct TestGraph {
  Graph graph;
  TensorId activation(const std::string& name, Shape shape) {
    return graph.add_tensor(Tensor{name, DType::kF32, std::move(shape), {}, false, {}});
  }
  TensorId constant(const std::string& name, Shape shape) {
    Tensor t{name, DType::kF32, std::move(shape), {}, true, {}};
    t.data.assign(static_cast<size_t>(t.size_bytes()), 0);
    return graph.add_tensor(std::move(t));
  }
  Node& node(OpType op, std::vector<TensorId> in, std::vector<TensorId> out, OpAttrs attrs = {}) {
    Node n;
    n.name = "n" + std::to_string(graph.nodes.size());
    n.op = op;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.attrs = std::move(attrs);
    graph.add_node(std::move(n));
    return graph.nodes.back();
  }
  Result<std::vector<Shape>> infer(const Node& n) { return op_decl(n.op).infer_shapes(graph, n); }
};

ConvAttrs conv3x3(int64_t stride, Padding2D pad) {
  ConvAttrs a;
  a.kernel_h = a.kernel_w = 3;
  a.stride_h = a.stride_w = stride;
  a.pad = pad;
  return a;
}

TEST(InputRange, StridedPaddedConvRowsFollowTheWindowFormula) {
  // 3x3, stride 2, pad 1: output rows [3, 6) read input rows
  // [3*2 - 1, (6-1)*2 + 3 - 1) = [5, 12).
  EXPECT_EQ(input_range(Window{3, 2, 1, 1}, Range{3, 6}, 224), (Range{5, 12}));
}

TEST(InputRange, ClampsToTheInputAtTheBorders) {
  // Output row 0 with pad 1 starts at input row -1, clamped to 0.
  EXPECT_EQ(input_range(Window{3, 2, 1, 1}, Range{0, 1}, 224), (Range{0, 2}));
  // Last output row 111 of a 224-row input: rows [221, 224), the padding row dropped.
  EXPECT_EQ(input_range(Window{3, 2, 1, 1}, Range{111, 112}, 224), (Range{221, 224}));
}

TEST(InputRange, DilationWidensTheWindow) {
  // kernel 3, dilation 2 spans 5 rows: output [0, 1) reads [0, 5).
  EXPECT_EQ(input_range(Window{3, 1, 2, 0}, Range{0, 1}, 10), (Range{0, 5}));
}

TEST(Conv2DDecl, StrideTwoSamePaddingHalvesTheImage) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 224, 224, 3});
  TensorId w = g.constant("w", {32, 3, 3, 3});
  TensorId y = g.activation("y", {});
  const Node& n = g.node(OpType::kConv2D, {x, w}, {y}, conv3x3(2, {0, 0, 1, 1}));
  auto shapes = g.infer(n);
  ASSERT_TRUE(shapes) << shapes.error().message;
  // (224 + 0 + 1 - 3) / 2 + 1 = 112.
  EXPECT_EQ((*shapes)[0], (Shape{1, 112, 112, 32}));
  g.graph.tensor(y).shape = (*shapes)[0];
  // 112*112*32 outputs, each 3*3*3 MACs = 10,838,016.
  EXPECT_EQ(op_decl(n.op).count_macs(g.graph, n), 10'838'016);
  EXPECT_EQ(op_decl(n.op).kind(g.graph, n), OpKind::kAggregating);
}

TEST(Conv2DDecl, AxisMapSlidesRowsAndColsAndReducesChannels) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 8, 8, 4});
  TensorId w = g.constant("w", {6, 3, 3, 4});
  TensorId y = g.activation("y", {1, 4, 4, 6});
  const Node& n = g.node(OpType::kConv2D, {x, w}, {y}, conv3x3(2, {1, 1, 1, 1}));
  AxisMap map = op_decl(n.op).map_axes(g.graph, n);
  ASSERT_EQ(map.links.size(), 3u);
  EXPECT_EQ(map.links[1].role, AxisRole::kWindow);
  EXPECT_EQ(map.links[1].window.stride, 2);
  EXPECT_EQ(map.links[1].window.pad_before, 1);
  ASSERT_EQ(map.reduced.size(), 1u);
  EXPECT_EQ(map.reduced[0].input_axis, 3);
}

TEST(Conv2DDecl, RejectsWeightsForTheWrongInputChannels) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 8, 8, 4});
  TensorId w = g.constant("w", {6, 3, 3, 5});
  TensorId y = g.activation("y", {});
  auto shapes = g.infer(g.node(OpType::kConv2D, {x, w}, {y}, conv3x3(1, {1, 1, 1, 1})));
  ASSERT_FALSE(shapes);
  EXPECT_NE(shapes.error().message.find("input channels"), std::string::npos);
}

TEST(Conv2DDecl, RejectsAKernelLargerThanThePaddedInput) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 2, 2, 1});
  TensorId w = g.constant("w", {1, 3, 3, 1});
  TensorId y = g.activation("y", {});
  EXPECT_FALSE(g.infer(g.node(OpType::kConv2D, {x, w}, {y}, conv3x3(1, {}))));
}

TEST(DepthwiseConv2DDecl, IsChannelwiseWithNineMacsPerOutputFor3x3) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 112, 112, 96});
  TensorId w = g.constant("w", {1, 3, 3, 96});
  TensorId y = g.activation("y", {});
  const Node& n = g.node(OpType::kDepthwiseConv2D, {x, w}, {y}, conv3x3(2, {0, 0, 1, 1}));
  auto shapes = g.infer(n);
  ASSERT_TRUE(shapes) << shapes.error().message;
  EXPECT_EQ((*shapes)[0], (Shape{1, 56, 56, 96}));
  g.graph.tensor(y).shape = (*shapes)[0];
  EXPECT_EQ(op_decl(n.op).count_macs(g.graph, n), 56 * 56 * 96 * 9);
  EXPECT_EQ(op_decl(n.op).kind(g.graph, n), OpKind::kChannelwise);
  EXPECT_EQ(op_decl(n.op).inplace, InplaceRule::kLineBuffer);
}

TEST(FullyConnectedDecl, FlattensTheInputIntoRowsOfInFeatures) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 1, 1, 1280});
  TensorId w = g.constant("w", {1000, 1280});
  TensorId y = g.activation("y", {});
  const Node& n = g.node(OpType::kFullyConnected, {x, w}, {y});
  auto shapes = g.infer(n);
  ASSERT_TRUE(shapes) << shapes.error().message;
  EXPECT_EQ((*shapes)[0], (Shape{1, 1000}));
  g.graph.tensor(y).shape = (*shapes)[0];
  EXPECT_EQ(op_decl(n.op).count_macs(g.graph, n), 1'280'000);
}

TEST(BinaryElementwiseDecl, BroadcastsLikeNumpy) {
  TestGraph g;
  TensorId a = g.activation("a", {1, 7, 7, 16});
  TensorId b = g.activation("b", {1, 1, 1, 16});
  TensorId y = g.activation("y", {});
  const Node& n = g.node(OpType::kMul, {a, b}, {y});
  auto shapes = g.infer(n);
  ASSERT_TRUE(shapes);
  EXPECT_EQ((*shapes)[0], (Shape{1, 7, 7, 16}));
  g.graph.tensor(y).shape = (*shapes)[0];
  AxisMap map = op_decl(n.op).map_axes(g.graph, n);
  // Four links per input; the second input's rows and cols broadcast.
  ASSERT_EQ(map.links.size(), 8u);
  EXPECT_FALSE(map.links[1].broadcast);
  EXPECT_TRUE(map.links[5].broadcast);
}

TEST(BinaryElementwiseDecl, RejectsShapesThatDoNotBroadcast) {
  TestGraph g;
  TensorId a = g.activation("a", {1, 3});
  TensorId b = g.activation("b", {1, 4});
  TensorId y = g.activation("y", {});
  auto shapes = g.infer(g.node(OpType::kAdd, {a, b}, {y}));
  ASSERT_FALSE(shapes);
  EXPECT_NE(shapes.error().message.find("do not broadcast"), std::string::npos);
}

TEST(PoolDecl, AveragePoolIsChannelwiseWithAWindowOnRows) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 7, 7, 320});
  TensorId y = g.activation("y", {});
  PoolAttrs a;
  a.kernel_h = a.kernel_w = 7;
  const Node& n = g.node(OpType::kAveragePool, {x}, {y}, a);
  auto shapes = g.infer(n);
  ASSERT_TRUE(shapes);
  EXPECT_EQ((*shapes)[0], (Shape{1, 1, 1, 320}));
  EXPECT_EQ(op_decl(n.op).kind(g.graph, n), OpKind::kChannelwise);
}

TEST(MeanDecl, GlobalPoolingKeepsChannelsAndIsChannelwise) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 7, 7, 64});
  TensorId y = g.activation("y", {});
  const Node& n = g.node(OpType::kMean, {x}, {y}, ReduceAttrs{{1, 2}, true});
  auto shapes = g.infer(n);
  ASSERT_TRUE(shapes);
  EXPECT_EQ((*shapes)[0], (Shape{1, 1, 1, 64}));
  EXPECT_EQ(op_decl(n.op).kind(g.graph, n), OpKind::kChannelwise);
}

TEST(SoftmaxDecl, OverChannelsIsNeitherChannelwiseNorAggregating) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 10});
  TensorId y = g.activation("y", {});
  const Node& n = g.node(OpType::kSoftmax, {x}, {y}, SoftmaxAttrs{1, 1.0f});
  EXPECT_EQ(op_decl(n.op).kind(g.graph, n), OpKind::kOther);
}

TEST(ConcatDecl, AddsExtentsAlongTheAxisAndRejectsOtherMismatches) {
  TestGraph g;
  TensorId a = g.activation("a", {1, 8, 8, 16});
  TensorId b = g.activation("b", {1, 8, 8, 48});
  TensorId c = g.activation("c", {1, 4, 8, 48});
  TensorId y = g.activation("y", {});
  auto ok = g.infer(g.node(OpType::kConcat, {a, b}, {y}, ConcatAttrs{3}));
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)[0], (Shape{1, 8, 8, 64}));
  EXPECT_FALSE(g.infer(g.node(OpType::kConcat, {a, c}, {y}, ConcatAttrs{3})));
}

// verify_graph rejects a fused activation on an operator whose declaration
// takes none (Softmax): no pass or kernel would apply it.
TEST(VerifyGraph, RejectsAFusedActivationTheOperatorDoesNotTake) {
  EXPECT_FALSE(op_decl(OpType::kSoftmax).fuses_activation);
  TestGraph g;
  TensorId a = g.activation("a", {1, 5});
  TensorId y = g.activation("y", {1, 5});
  g.graph.inputs = {a};
  g.graph.outputs = {y};
  Node& softmax = g.node(OpType::kSoftmax, {a}, {y}, SoftmaxAttrs{1, 1.0f});
  ASSERT_TRUE(verify_graph(g.graph));
  softmax.activation.min = 0.0f;  // Relu
  const auto rejected = verify_graph(g.graph);
  ASSERT_FALSE(rejected);
  EXPECT_NE(rejected.error().message.find("fused activation"), std::string::npos) << rejected.error().message;
}

TEST(ReshapeDecl, IsAnAliasThatKeepsTheElementCount) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 1, 1, 1280});
  TensorId y = g.activation("y", {1, 1280});
  TensorId z = g.activation("z", {1, 1281});
  EXPECT_TRUE(op_decl(OpType::kReshape).is_alias);
  EXPECT_TRUE(g.infer(g.node(OpType::kReshape, {x}, {y})));
  EXPECT_FALSE(g.infer(g.node(OpType::kReshape, {x}, {z})));
}

TEST(SplitDecl, SizesMustSumToTheAxisExtent) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 10});
  TensorId a = g.activation("a", {});
  TensorId b = g.activation("b", {});
  EXPECT_TRUE(g.infer(g.node(OpType::kSplit, {x}, {a, b}, SplitAttrs{1, {4, 6}})));
  EXPECT_FALSE(g.infer(g.node(OpType::kSplit, {x}, {a, b}, SplitAttrs{1, {4, 5}})));
}

// NASNet's factorized-reduce shift at stride 2: out row i reads in row 1 + 2i
// (a window of one row, padding -1). A copy computing out rows [2, 5) from
// in rows [5, 10) starts at its first input row and ends at its last.
TEST(SliceDecl, RowsAreAWindowOfOneRowThatACopyReStartsOnItsBand) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 12, 6, 2});
  TensorId y = g.activation("y", {});
  Node& n = g.node(OpType::kSlice, {x}, {y}, SliceAttrs{{0, 1, 1, 0}, {1, 12, 6, 2}, {1, 2, 1, 1}});
  const AxisMap map = op_decl(n.op).map_axes(g.graph, n);
  ASSERT_EQ(map.links[1].role, AxisRole::kWindow);
  const Range rows = input_range(map.links[1].window, {2, 5}, 12);
  EXPECT_EQ(rows, (Range{5, 10}));
  ASSERT_NE(op_decl(n.op).set_row_padding, nullptr);
  op_decl(n.op).set_row_padding(n, 0, 0, rows.size());
  const auto& a = std::get<SliceAttrs>(n.attrs);
  EXPECT_EQ(a.begin, (std::vector<int64_t>{0, 0, 1, 0}));  // the columns keep theirs
  EXPECT_EQ(a.end, (std::vector<int64_t>{1, 5, 6, 2}));
  TestGraph band;
  TensorId bx = band.activation("x", {1, 5, 6, 2});
  TensorId by = band.activation("y", {});
  auto shape = band.infer(band.node(OpType::kSlice, {bx}, {by}, n.attrs));
  ASSERT_TRUE(shape);
  EXPECT_EQ((*shape)[0], (Shape{1, 3, 5, 2}));
}

TEST(TransposeDecl, RejectsAPermWithARepeatedAxis) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 3, 4, 5});
  TensorId y = g.activation("y", {});
  EXPECT_FALSE(g.infer(g.node(OpType::kTranspose, {x}, {y}, TransposeAttrs{{0, 2, 2, 1}})));
  auto ok = g.infer(g.node(OpType::kTranspose, {x}, {y}, TransposeAttrs{{0, 2, 3, 1}}));
  ASSERT_TRUE(ok);
  EXPECT_EQ((*ok)[0], (Shape{1, 4, 5, 3}));
}

TEST(VerifyGraph, RejectsANodeThatReadsATensorProducedLater) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 4});
  TensorId a = g.activation("a", {1, 4});
  TensorId b = g.activation("b", {1, 4});
  g.graph.inputs = {x};
  g.node(OpType::kAdd, {x, b}, {a});  // b is only produced by the next node: a cycle
  g.node(OpType::kSigmoid, {a}, {b});
  g.graph.outputs = {b};
  auto status = verify_graph(g.graph);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().node, "n0");
  EXPECT_NE(status.error().message.find("cycle"), std::string::npos);
}

TEST(VerifyGraph, AcceptsAWellFormedChain) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 4});
  TensorId a = g.activation("a", {1, 4});
  g.graph.inputs = {x};
  g.node(OpType::kSigmoid, {x}, {a});
  g.graph.outputs = {a};
  EXPECT_TRUE(verify_graph(g.graph));
}

TEST(VerifyGraph, RejectsTwoTensorsWithOneName) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 4});
  TensorId a = g.activation("x", {1, 4});
  g.graph.inputs = {x};
  g.node(OpType::kSigmoid, {x}, {a});
  g.graph.outputs = {a};
  auto status = verify_graph(g.graph);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("tensor name 'x' is used by tensors 0 and 1"), std::string::npos)
      << status.error().message;
}

TEST(InferGraphShapes, ReportsTheNodeWhoseDeclaredOutputDisagrees) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 4});
  TensorId a = g.activation("a", {1, 5});
  g.graph.inputs = {x};
  g.node(OpType::kSigmoid, {x}, {a});
  g.graph.outputs = {a};
  auto status = infer_graph_shapes(g.graph);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().node, "n0");
  EXPECT_EQ(status.error().op, "Sigmoid");
}

TEST(ChannelShuffleDecl, KeepsTheShapeIsNoChunkBoundaryAndPermutesOnlyChannels) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 4, 4, 12});
  TensorId y = g.activation("y", {});
  Node& n = g.node(OpType::kChannelShuffle, {x}, {y}, ChannelShuffleAttrs{3});
  auto shapes = g.infer(n);
  ASSERT_TRUE(shapes) << shapes.error().message;
  EXPECT_EQ((*shapes)[0], (Shape{1, 4, 4, 12}));
  g.graph.tensor(y).shape = (*shapes)[0];
  const OpDecl& decl = op_decl(OpType::kChannelShuffle);
  EXPECT_EQ(decl.count_macs(g.graph, n), 0);
  // A chunk of output channels reads channels spread over the input.
  EXPECT_EQ(decl.kind(g.graph, n), OpKind::kOther);
  const AxisMap map = decl.map_axes(g.graph, n);
  ASSERT_EQ(map.links.size(), 4u);
  for (int axis = 0; axis < 3; ++axis) EXPECT_EQ(map.links[static_cast<size_t>(axis)].role, AxisRole::kIdentity);
  EXPECT_EQ(map.links[3].role, AxisRole::kPermuted);
  EXPECT_EQ(map.links[3].factor, 3);
}

TEST(ChannelShuffleDecl, GroupsMustDivideTheChannels) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 2, 2, 10});
  TensorId y = g.activation("y", {});
  auto shapes = g.infer(g.node(OpType::kChannelShuffle, {x}, {y}, ChannelShuffleAttrs{3}));
  ASSERT_FALSE(shapes);
  EXPECT_EQ(shapes.error().message, "3 groups do not divide 10 channels");
}

ResizeAttrs resize_to(int64_t rows, int64_t cols, ResizeMode mode) {
  ResizeAttrs a;
  a.mode = mode;
  a.rows = rows;
  a.cols = cols;
  return a;
}

TEST(ResizeDecl, ResizesRowsAndColsOnlyAndIsChannelwise) {
  TestGraph g;
  TensorId x = g.activation("x", {1, 6, 5, 3});
  TensorId y = g.activation("y", {});
  Node& n = g.node(OpType::kResize, {x}, {y}, resize_to(12, 10, ResizeMode::kBilinear));
  auto shapes = g.infer(n);
  ASSERT_TRUE(shapes) << shapes.error().message;
  EXPECT_EQ((*shapes)[0], (Shape{1, 12, 10, 3}));
  g.graph.tensor(y).shape = (*shapes)[0];
  const OpDecl& decl = op_decl(OpType::kResize);
  EXPECT_EQ(decl.count_macs(g.graph, n), 4 * 12 * 10 * 3);  // four taps per output element
  EXPECT_EQ(decl.kind(g.graph, n), OpKind::kChannelwise);
}

TEST(ResizeDecl, OutputRowsMapToTheInputRowsTheyRead) {
  // ONNX nearest, asymmetric, floor (the attributes' defaults), 4 -> 8 rows:
  // output row i reads input row floor(i / 2).
  TestGraph g;
  TensorId x = g.activation("x", {1, 4, 4, 1});
  TensorId y = g.activation("y", {1, 8, 8, 1});
  Node& nearest = g.node(OpType::kResize, {x}, {y}, resize_to(8, 8, ResizeMode::kNearest));
  const AxisMap map = op_decl(OpType::kResize).map_axes(g.graph, nearest);
  ASSERT_EQ(map.links.size(), 4u);
  const AxisLink& rows = map.links[1];
  EXPECT_EQ(rows.role, AxisRole::kResampled);
  ASSERT_EQ(rows.reads.size(), 8u);
  for (int64_t i = 0; i < 8; ++i) EXPECT_EQ(rows.reads[static_cast<size_t>(i)], (Range{i / 2, i / 2 + 1})) << i;
}

}  // namespace
}  // namespace tinyfit::ir
