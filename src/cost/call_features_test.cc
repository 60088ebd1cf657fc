#include "cost/call_features.h"

#include <gtest/gtest.h>

#include "support/test_graph.h"

namespace tinyfit::cost {
namespace {

// One Conv2D, input [1,4,4,2], 3x3 kernel, stride 1, padding 1, 3 output
// channels: output [1,4,4,3]. Along rows (and cols) the in-bounds taps of
// outputs 0..3 are 2, 3, 3, 2 (the border outputs lose one tap): sum 10, and
// 2 outputs see the whole window.
struct ConvGraph {
  testing::TestGraph test_graph;
  const ir::Node* node = nullptr;

  ConvGraph() {
    ir::ConvAttrs a;
    a.kernel_h = a.kernel_w = 3;
    a.pad = {1, 1, 1, 1};
    test_graph.node(ir::OpType::kConv2D, {test_graph.input({1, 4, 4, 2}), test_graph.constant({3, 3, 3, 2})}, a);
    node = &test_graph.graph.nodes.front();
  }

  CallGeometry whole() const {
    CallGeometry geometry;
    geometry.graph = &test_graph.graph;
    geometry.node = node;
    geometry.written = {{0, 1}, {0, 4}, {0, 4}, {0, 3}};
    geometry.read_elements = 32;
    return geometry;
  }
};

TEST(ComputeCallFeatures, AWholeConvolutionCountsInBoundsTapsAndWork) {
  const ConvGraph c;
  const FeatureVector f = compute_call_features(c.whole());
  EXPECT_EQ(at(f, Feature::kCalls), 1);
  EXPECT_EQ(at(f, Feature::kLoopCalls), 0);
  EXPECT_EQ(at(f, Feature::kRows), 4);
  EXPECT_EQ(at(f, Feature::kPixels), 16);
  EXPECT_EQ(at(f, Feature::kElements), 48);
  EXPECT_EQ(at(f, Feature::kReadElements), 32);
  EXPECT_EQ(at(f, Feature::kTaps), 100);               // 10 x 10
  EXPECT_EQ(at(f, Feature::kTapVisits), 300);          // x 3 channels
  EXPECT_EQ(at(f, Feature::kPatchWork), 200);          // taps x 2 input channels
  EXPECT_EQ(at(f, Feature::kInboundWork), 600);        // MACs done
  EXPECT_EQ(at(f, Feature::kPaddedWork), 264);         // (16 x 9 - 100) taps x 3 x 2
  EXPECT_EQ(at(f, Feature::kBorderTapVisits), 192);    // (100 - 4 whole pixels x 9) x 3
  EXPECT_EQ(at(f, Feature::kBorderWork), 384);
  // 3 channels: no block of four, three single channels.
  EXPECT_EQ(at(f, Feature::kChannelBlocks), 48);       // 16 pixels x 3
  EXPECT_EQ(at(f, Feature::kTapBlocks), 300);
  EXPECT_EQ(at(f, Feature::kTapRowBlocks), 120);       // (10 rows of taps x 4 cols) x 3
  EXPECT_EQ(at(f, Feature::kTailWork), 600);
  EXPECT_EQ(at(f, Feature::kWideBlocks), 16);          // one block of sixteen per pixel
  EXPECT_EQ(at(f, Feature::kRescaledElements), 0);     // float: no quantization
  // Not a fused call: none of the fused stages' counts.
  for (int i = static_cast<int>(Feature::kMidPixels); i < kFeatureCount; ++i) {
    EXPECT_EQ(f[static_cast<size_t>(i)], 0) << feature_name(static_cast<Feature>(i));
  }
}

TEST(ComputeCallFeatures, ARowChunkCountsItsOwnRowsTaps) {
  const ConvGraph c;
  CallGeometry g = c.whole();
  g.written[1] = {1, 3};  // rows 1 and 2: 3 taps each along rows, none clipped
  g.in_loop = true;
  const FeatureVector f = compute_call_features(g);
  EXPECT_EQ(at(f, Feature::kLoopCalls), 1);
  EXPECT_EQ(at(f, Feature::kRows), 2);
  EXPECT_EQ(at(f, Feature::kTaps), 60);                // 6 x 10
  EXPECT_EQ(at(f, Feature::kInboundWork), 360);        // 60 x 3 x 2
  EXPECT_EQ(at(f, Feature::kBorderTapVisits), 72);     // (60 - 4 whole pixels x 9) x 3
}

TEST(ComputeCallFeatures, AnAccumulateCallDoesItsShareOfTheWork) {
  const ConvGraph c;
  CallGeometry g = c.whole();
  g.work_share = 0.5;  // one of two input channels
  const FeatureVector f = compute_call_features(g);
  EXPECT_EQ(at(f, Feature::kInboundWork), 300);
  EXPECT_EQ(at(f, Feature::kTapVisits), 300);  // the taps are visited all the same
}

TEST(ComputeCallFeatures, ACopyHasShapeCountsButNoWork) {
  CallGeometry g;
  g.written = {{0, 2}, {0, 8}};  // rank 2 as a tf_view: {1, 1, 2, 8}
  g.read_elements = 16;
  const FeatureVector f = compute_call_features(g);
  EXPECT_EQ(at(f, Feature::kRows), 1);
  EXPECT_EQ(at(f, Feature::kPixels), 2);
  EXPECT_EQ(at(f, Feature::kElements), 16);
  EXPECT_EQ(at(f, Feature::kInboundWork), 0);
  EXPECT_EQ(at(f, Feature::kChannelBlocks), 4);  // 2 pixels x 2 blocks of four
}

}  // namespace
}  // namespace tinyfit::cost
