// Which readers after a row loop join it so that the wide tensors it reads
// or makes die in it, and which operators leave it (split_input_readers.h),
// on hand-built graphs shaped like a NAS cell's preprocessing.
#include "partition/split_input_readers.h"

#include <gtest/gtest.h>

#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

// A 1x1 convolution of x to `channels` channels.
ir::TensorId add_pointwise(TestGraph& g, ir::TensorId x, int64_t channels) {
  const int64_t in_channels = g.graph.tensor(x).shape[3];
  return g.node(OpType::kConv2D, {x, g.constant({channels, 1, 1, in_channels})}, make_conv_attrs(1));
}

bool always(const ir::Node&) { return true; }

// Operator 0 makes t (16 rows, 16 channels: a cell's concat); the loop is 1
// (sigmoid of t, as the ReLU of a preprocess) and 2 (its 1x1 convolution to
// 4 channels, the sink). The next cell preprocesses t too: 3 (sigmoid of t)
// and 4 (1x1 convolution to 4 channels).
struct TwoPreprocesses {
  TestGraph g;
  ir::TensorId t, sink, other;
  TwoPreprocesses() {
    t = g.node(OpType::kConv2D, {g.input({1, 16, 16, 4}), g.constant({16, 3, 3, 4})}, make_conv_attrs(3, 1, 1));
    sink = add_pointwise(g, g.node(OpType::kSigmoid, {t}), 4);
    other = add_pointwise(g, g.node(OpType::kSigmoid, {t}), 4);
  }
};

TEST(SplitInputReaders, TheOtherPreprocessOfTheLoopsInputJoinsDownToItsNarrowTensor) {
  TwoPreprocesses p;
  p.g.output(p.g.node(OpType::kAdd, {p.sink, p.other}));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(p.g.graph);
  // 5 (the Add) reads the loop's sink, which it does not narrow: it stays
  // out, and t dies in the loop.
  EXPECT_EQ(add_split_input_readers(p.g.graph, bg, {1, 2}, always), (std::vector<int>{1, 2, 3, 4}));
  // Without a kernel that runs the sigmoid by rows, nothing joins.
  EXPECT_EQ(add_split_input_readers(p.g.graph, bg, {1, 2},
                                    [](const ir::Node& n) { return n.op != OpType::kSigmoid; }),
            (std::vector<int>{1, 2}));
}

TEST(SplitInputReaders, AChainThatNeverNarrowsStaysOut) {
  // 3 (sigmoid of t) is read by nobody but kept as a model output: handing it
  // on would keep as many bytes as t, so it stays out.
  TestGraph g;
  const ir::TensorId t =
      g.node(OpType::kConv2D, {g.input({1, 16, 16, 4}), g.constant({16, 3, 3, 4})}, make_conv_attrs(3, 1, 1));
  g.output(add_pointwise(g, g.node(OpType::kSigmoid, {t}), 4));
  g.output(g.node(OpType::kSigmoid, {t}));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(g.graph);
  EXPECT_EQ(add_split_input_readers(g.graph, bg, {1, 2}, always), (std::vector<int>{1, 2}));
}

TEST(SplitInputReaders, AReaderOfATensorMadeAfterTheLoopsStartOutsideItStaysOut) {
  // 5: a convolution of the model input, after the loop and outside it; 6:
  // Add(t, 5's output) reads it, so 6 stays out, and 7 (its 1x1
  // convolution) with it. The other preprocess (3, 4) joins.
  TwoPreprocesses p;
  const ir::TensorId late = p.g.node(OpType::kConv2D, {p.g.graph.inputs.front(), p.g.constant({16, 3, 3, 4})},
                                     make_conv_attrs(3, 1, 1));
  p.g.output(p.sink);
  p.g.output(p.other);
  p.g.output(add_pointwise(p.g, p.g.node(OpType::kAdd, {p.t, late}), 4));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(p.g.graph);
  EXPECT_EQ(add_split_input_readers(p.g.graph, bg, {1, 2}, always), (std::vector<int>{1, 2, 3, 4}));
}

TEST(SplitInputReaders, OperatorsThatOnlyNarrowATensorFromBeforeTheLoopLeaveIt) {
  // 5: 1x1 convolution of t to 4 channels; 6: Add(4's output, 5's).
  // Loop 3, 4, 5: 3 (sigmoid of t) does not narrow, 4 reads a tensor of the
  // loop, 5 narrows t but is the sink: all stay. Loop 2 .. 6: 2 (the first
  // preprocess' convolution of 1's output) and 5 narrow tensors from before
  // it: they leave.
  TwoPreprocesses p;
  p.g.output(p.sink);
  p.g.output(p.g.node(OpType::kAdd, {p.other, add_pointwise(p.g, p.t, 4)}));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(p.g.graph);
  EXPECT_EQ(hoist_narrowing_readers(bg, {3, 4, 5}), (std::vector<int>{3, 4, 5}));
  EXPECT_EQ(hoist_narrowing_readers(bg, {2, 3, 4, 5, 6}), (std::vector<int>{3, 4, 6}));
}

}  // namespace
}  // namespace tinyfit::partition
