// The stretches of whole cells around a bottleneck tensor's producer and
// readers (MOTES §4.5: sub-ACGs holding bottleneck tensors, merged across
// cells).
#include "partition/bottleneck_spans.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "support/test_graph.h"

namespace tinyfit::partition {
namespace {

using ir::OpType;
using testing::make_conv_attrs;
using testing::TestGraph;

// x -> a -> b -> c, d = a + c, e, f (operators 0..5), in hand-made cells
// {0}, {1, 2}, {3, 4}, {5}: a is made in cell 0 and read in cells 1 and 2.
struct Skip {
  TestGraph g;
  analysis::BufferGraph bg;
  std::vector<Cell> cells{{{0}}, {{1, 2}}, {{3, 4}}, {{5}}};
};
Skip make_skip() {
  Skip s;
  auto conv = [&s](ir::TensorId x) {
    return s.g.node(OpType::kConv2D, {x, s.g.constant({4, 3, 3, 4})}, make_conv_attrs(3, 1, 1));
  };
  const ir::TensorId a = conv(s.g.input({1, 8, 8, 4}));
  const ir::TensorId c = conv(conv(a));
  s.g.output(conv(conv(s.g.node(OpType::kAdd, {a, c}))));
  s.bg = analysis::build_buffer_graph(s.g.graph);
  return s;
}

int output_of(const analysis::BufferGraph& bg, int op) { return bg.operators[static_cast<size_t>(op)].outputs[0]; }

TEST(BottleneckSpans, ASpanHoldsTheProducerAndEveryReaderAndRunsOnUpToExtraCells) {
  const Skip s = make_skip();
  // a: cells 0..2 (operators 0..4), and on into cell 3 (0..5); never past
  // the last cell.
  EXPECT_EQ(list_bottleneck_spans(s.bg, s.cells, {output_of(s.bg, 0)}, 2), (std::vector<Stretch>{{0, 4}, {0, 5}}));
  EXPECT_EQ(list_bottleneck_spans(s.bg, s.cells, {output_of(s.bg, 0)}, 0), (std::vector<Stretch>{{0, 4}}));
}

TEST(BottleneckSpans, AOneCellTensorSpansOnlyWithTheCellsAroundIt) {
  const Skip s = make_skip();
  // b (made and read in cell 1): one cell back (0..2), one on (1..4), both
  // (0..4); the cell alone is the beam's candidate, not a span.
  EXPECT_EQ(list_bottleneck_spans(s.bg, s.cells, {output_of(s.bg, 1)}, 1),
            (std::vector<Stretch>{{0, 2}, {0, 4}, {1, 4}}));
}

TEST(BottleneckSpans, TheUnionOfTheBottlenecksIsASpanToo) {
  const Skip s = make_skip();
  // b spans cell 1, e (made in cell 2, read in cell 3) cells 2..3; their
  // union, cells 1..3, is operators 1..5.
  const std::vector<Stretch> spans = list_bottleneck_spans(s.bg, s.cells, {output_of(s.bg, 1), output_of(s.bg, 4)}, 0);
  EXPECT_NE(std::find(spans.begin(), spans.end(), Stretch{1, 5}), spans.end());
  EXPECT_TRUE(std::is_sorted(spans.begin(), spans.end(), [](const Stretch& x, const Stretch& y) {
    return std::tie(x.first, x.last) < std::tie(y.first, y.last);
  }));
}

}  // namespace
}  // namespace tinyfit::partition
