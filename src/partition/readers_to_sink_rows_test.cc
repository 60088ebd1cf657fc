// Which readers after a row loop join it (readers_to_sink_rows.h), on
// hand-built graphs shaped like NASNet's factorized reduce.
#include "partition/readers_to_sink_rows.h"

#include <gtest/gtest.h>

#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

ir::TensorId add_conv(TestGraph& g, ir::TensorId x, int64_t kernel, int64_t stride, int64_t pad) {
  const int64_t channels = g.graph.tensor(x).shape[3];
  return g.node(OpType::kConv2D, {x, g.constant({channels, kernel, kernel, channels})},
                make_conv_attrs(kernel, stride, pad));
}

bool always(const ir::Node&) { return true; }

// Operators 0 (a: 16 rows) and 1 (b = conv stride 2 of a: 8 rows, the
// sink) form the loop; a is also read after it.
struct WideHandOn {
  TestGraph g;
  ir::TensorId a, b;
  WideHandOn() {
    a = add_conv(g, g.input({1, 16, 16, 4}), 3, 1, 1);
    b = add_conv(g, a, 3, 2, 1);
  }
};

TEST(ReadersToSinkRows, AWideTensorsReadersJoinDownToTheSinksRows) {
  // 2: sigmoid(a) (element-wise, as NASNet's relu), 16 rows, read by 3:
  // conv1x1 stride 2 (8 rows, the sink's): both join; 4 (an Add of b and
  // 3's output) reads no wide tensor.
  WideHandOn w;
  const ir::TensorId relu = w.g.node(OpType::kSigmoid, {w.a});
  const ir::TensorId reduced = add_conv(w.g, relu, 1, 2, 0);
  w.g.output(w.g.node(OpType::kAdd, {w.b, reduced}));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(w.g.graph);
  EXPECT_EQ(add_readers_to_sink_rows(w.g.graph, bg, {0, 1}, always), (std::vector<int>{0, 1, 2, 3}));
  // Without a kernel that runs the sigmoid by rows, nothing joins.
  EXPECT_EQ(add_readers_to_sink_rows(w.g.graph, bg, {0, 1},
                                     [](const ir::Node& n) { return n.op != OpType::kSigmoid; }),
            (std::vector<int>{0, 1}));
}

TEST(ReadersToSinkRows, AChainThatEndsBelowTheSinksRowsStaysOut) {
  // 2: sigmoid(a) (16 rows) read only by 3: conv1x1 stride 4 (4 rows, fewer
  // than the sink's 8): 3 cannot join, so 2 would be a sink of 16 rows:
  // neither joins.
  WideHandOn w;
  w.g.output(w.b);
  w.g.output(add_conv(w.g, w.g.node(OpType::kSigmoid, {w.a}), 1, 4, 0));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(w.g.graph);
  EXPECT_EQ(add_readers_to_sink_rows(w.g.graph, bg, {0, 1}, always), (std::vector<int>{0, 1}));
}

TEST(ReadersToSinkRows, AReaderOfATensorMadeAfterTheLoopStaysOut) {
  // 2: conv stride 2 of the model input (no loop tensor: stays out), 3:
  // conv1x1 stride 2 of a (8 rows: joins), 4: Add(2, 3): reads 2, made
  // after the loop's first operator and outside it, so it stays out.
  WideHandOn w;
  const ir::TensorId outside = add_conv(w.g, w.g.graph.inputs.front(), 3, 2, 1);
  const ir::TensorId reduced = add_conv(w.g, w.a, 1, 2, 0);
  w.g.output(w.b);
  w.g.output(w.g.node(OpType::kAdd, {outside, reduced}));
  const analysis::BufferGraph bg = analysis::build_buffer_graph(w.g.graph);
  EXPECT_EQ(add_readers_to_sink_rows(w.g.graph, bg, {0, 1}, always), (std::vector<int>{0, 1, 3}));
}

}  // namespace
}  // namespace tinyfit::partition
