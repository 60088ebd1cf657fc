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
  for (int i = static_cast<int>(Feature::kMidPixels); i <= static_cast<int>(Feature::kResidualElements); ++i) {
    EXPECT_EQ(f[static_cast<size_t>(i)], 0) << feature_name(static_cast<Feature>(i));
  }
}

// The im2col GEMM on ConvGraph: 16 pixels in 6 groups of three (the last
// one pixel and two repeats), K = 9 taps x 2 channels = 18 lanes in 5 words;
// 2 channels a tap: staged. Small calls like this one were priced per pixel,
// their last group's repeats unseen (held-out im2col __dsp probes: 37.5% rms).
TEST(ComputeCallFeatures, TheIm2colGemmCountsGroupsOfThreePixels) {
  const ConvGraph c;
  const FeatureVector f = compute_call_features(c.whole());
  EXPECT_EQ(at(f, Feature::kGemmGroups), 6);
  EXPECT_EQ(at(f, Feature::kGemmPairGroups), 12);     // channels [0, 3): pairs (0, 1), (2, -)
  EXPECT_EQ(at(f, Feature::kGatherWords), 90);        // 3 x 6 columns x 5 words
  EXPECT_EQ(at(f, Feature::kStagedElements), 324);    // 3 x 6 columns x 18
  // Per group two dot products of 5 words (an odd count: one word before
  // the loop's two a step); channel 2 runs alone.
  EXPECT_EQ(at(f, Feature::kGemmDotSteps), 60);       // 6 groups x 2 x 5 words
  EXPECT_EQ(at(f, Feature::kGemmOddDots), 12);
  EXPECT_EQ(at(f, Feature::kGemmLoneGroups), 6);
  CallGeometry chunk = c.whole();
  chunk.written[3] = {1, 3};  // channels 1 and 2: pairs (-, 1), (2, -)
  const FeatureVector g = compute_call_features(chunk);
  EXPECT_EQ(at(g, Feature::kGemmPairGroups), 12);
  EXPECT_EQ(at(g, Feature::kGemmLoneGroups), 12);     // both alone
  CallGeometry pair = c.whole();
  pair.written[3] = {1, 2};  // one odd channel
  EXPECT_EQ(at(compute_call_features(pair), Feature::kGemmLoneGroups), 6);
  pair.written[3] = {0, 2};  // one whole pair
  EXPECT_EQ(at(compute_call_features(pair), Feature::kGemmLoneGroups), 0);
}

// The im2col GEMM's two gather paths on ConvGraph: the 4 interior pixels
// (rows and columns 1-2) run as one run in 2 groups of three; the other 12
// are gathered one by one in 4 groups, 3 window rows a pixel; with 2 channels
// a tap both paths stage their columns (3 x 18 elements a group). An
// accumulate call gathers every pixel one by one.
TEST(ComputeCallFeatures, TheIm2colGemmRunsItsInteriorAndGathersTheRest) {
  const ConvGraph c;
  const FeatureVector f = compute_call_features(c.whole());
  EXPECT_EQ(at(f, Feature::kGemmRunGroups), 2);
  EXPECT_EQ(at(f, Feature::kGemmGatheredGroups), 4);
  EXPECT_EQ(at(f, Feature::kGemmGatheredRows), 36);     // 4 x 3 pixels x 3 window rows
  EXPECT_EQ(at(f, Feature::kGemmStagedElements), 324);  // (2 + 4) x 3 x 18
  CallGeometry accumulate = c.whole();
  accumulate.work_share = 0.5;
  const FeatureVector a = compute_call_features(accumulate);
  EXPECT_EQ(at(a, Feature::kGemmRunGroups), 0);
  EXPECT_EQ(at(a, Feature::kGemmGatheredGroups), 6);

  // An RGB stem, 6x6x3 "same": 16 interior pixels in 6 run groups, which read
  // their 3x3x3 windows as seven words (no staging); 20 gathered in 7 groups.
  testing::TestGraph t;
  t.node(ir::OpType::kConv2D, {t.input({1, 6, 6, 3}), t.constant({8, 3, 3, 3})}, testing::make_conv_attrs(3, 1, 1));
  const FeatureVector stem = compute_call_features(describe_whole_call(t.graph, t.graph.nodes.front()));
  EXPECT_EQ(at(stem, Feature::kGemmRunGroups), 6);
  EXPECT_EQ(at(stem, Feature::kGemmGatheredGroups), 7);
  EXPECT_EQ(at(stem, Feature::kGemmStagedElements), 567);  // 7 x 3 x 27
  // The dense pointwise path has neither.
  testing::TestGraph p;
  p.node(ir::OpType::kConv2D, {p.input({1, 4, 5, 8}), p.constant({6, 1, 1, 8})}, ir::ConvAttrs{});
  const FeatureVector pointwise = compute_call_features(describe_whole_call(p.graph, p.graph.nodes.front()));
  EXPECT_EQ(at(pointwise, Feature::kGemmRunGroups), 0);
  EXPECT_EQ(at(pointwise, Feature::kGemmGatheredGroups), 0);
}

// The window kernel on ConvGraph: columns 1 and 2 see the whole window, so
// each of the 4 output rows has an interior run of 2 pixels, one pair; the
// rows' in-bounds window rows sum to 10 (2 + 3 + 3 + 2). Rows 1 and 2 see
// every window row, so border columns 0 and 3 (two taps in bounds each) have
// a run of 2 pixels down them, one pair of 3 window rows. With an odd number
// of channels the last one runs those pairs; everything else pixel by pixel.
TEST(ComputeCallFeatures, TheWindowKernelsOddChannelRunsItsInteriorAndBorderColumnsInPixelPairs) {
  const ConvGraph c;
  const FeatureVector f = compute_call_features(c.whole());  // 3 channels
  EXPECT_EQ(at(f, Feature::kOddRunPairs), 6);       // 4 rows x 1 pair + 2 columns x 1 pair
  EXPECT_EQ(at(f, Feature::kOddRunTapRows), 16);    // 10 window rows x 1 pair + 2 columns x 3
  EXPECT_EQ(at(f, Feature::kOddRunWork), 84);       // (10 x 3 columns + 3 rows x 4 border taps) x 2 input channels
  EXPECT_EQ(at(f, Feature::kPixelPairSlots), 20);   // 16 pixels x 2 pairs, less the 8 + 4 run pixels
  EXPECT_EQ(at(f, Feature::kPixelPairWork), 432);   // 600 MACs less (10 x 2 x 3 + 2 x 3 x 4) x 2
  CallGeometry one = c.whole();
  one.written[3] = {1, 2};  // partial execution's one-channel chunk
  const FeatureVector g = compute_call_features(one);
  EXPECT_EQ(at(g, Feature::kOddRunPairs), 6);
  EXPECT_EQ(at(g, Feature::kPixelPairSlots), 4);    // the 4 corner pixels
  EXPECT_EQ(at(g, Feature::kPixelPairWork), 32);    // 200 MACs less 168: 4 corners x 4 taps x 2
  CallGeometry two = c.whole();
  two.written[3] = {1, 3};  // an even count: every pixel a pair, no odd run
  const FeatureVector h = compute_call_features(two);
  EXPECT_EQ(at(h, Feature::kOddRunPairs), 0);
  EXPECT_EQ(at(h, Feature::kOddRunWork), 0);
  EXPECT_EQ(at(h, Feature::kPixelPairSlots), 16);
  EXPECT_EQ(at(h, Feature::kPixelPairWork), 400);   // 100 taps x 2 channels x 2
}

// An RGB stem, input [1,9,17,3], 3x3 stride 2 padding 1, 4 output channels:
// output [1,5,9,4], columns 1..7 interior (7 pixels a row: two steps of
// four, the second overlapping), rows 1..3 interior, rows' in-bounds window
// rows 2+3+3+3+2 = 13.
// A one-channel call runs that interior four pixels at a time (the window
// kernel's channel9 path), not in the odd channel's pairs.
TEST(ComputeCallFeatures, AOneChannelCallOfAnRgbStemRunsItsInteriorFourPixelsAtATime) {
  testing::TestGraph t;
  ir::ConvAttrs a;
  a.kernel_h = a.kernel_w = 3;
  a.stride_h = a.stride_w = 2;
  a.pad = {1, 1, 1, 1};
  t.node(ir::OpType::kConv2D, {t.input({1, 9, 17, 3}), t.constant({4, 3, 3, 3})}, a);
  CallGeometry one;
  one.graph = &t.graph;
  one.node = &t.graph.nodes.front();
  one.written = {{0, 1}, {0, 5}, {0, 9}, {2, 3}};
  one.read_elements = 9 * 17 * 3;
  const FeatureVector f = compute_call_features(one);
  EXPECT_EQ(at(f, Feature::kQuadRows), 5);
  EXPECT_EQ(at(f, Feature::kQuadSteps), 10);       // 5 rows x 2 steps
  EXPECT_EQ(at(f, Feature::kQuadStepRows), 26);    // 13 window rows x 2 steps
  EXPECT_EQ(at(f, Feature::kOddRunPairs), 4);      // only the 2 border columns' runs of 3 rows: 2 pairs each
  EXPECT_EQ(at(f, Feature::kPixelPairSlots), 4);   // the 4 corner pixels
  CallGeometry two = one;
  two.written[3] = {2, 4};  // two channels: every pixel a pair
  const FeatureVector g = compute_call_features(two);
  EXPECT_EQ(at(g, Feature::kQuadSteps), 0);
  EXPECT_EQ(at(g, Feature::kQuadStepRows), 0);
}

// The ConvGraph's one-channel call (two input channels: window rows of six)
// takes the pair path, not the four-pixel one.
TEST(ComputeCallFeatures, AOneChannelCallOfAnotherConvolutionHasNoFourPixelSteps) {
  const ConvGraph c;
  CallGeometry one = c.whole();
  one.written[3] = {1, 2};
  const FeatureVector f = compute_call_features(one);
  EXPECT_EQ(at(f, Feature::kQuadSteps), 0);
  EXPECT_EQ(at(f, Feature::kOddRunPairs), 6);
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


// A 5x5 depthwise over a small image, as MCUNet's late blocks have them:
// input [1,6,6,10], padding 2, stride 1, output [1,6,6,10]. Along rows (and
// cols) outputs 0..5 see 3, 4, 5, 5, 4, 3 taps (sum 24); outputs 2 and 3 see
// the whole window. So 4 interior pixels and 32 border pixels: the window
// totals alone priced such a call at 3x its measured instructions on the
// Cortex-M4 (mcunet_vww, in place), where border pixels take the slower
// per-pixel path.
CallGeometry make_small_depthwise(const testing::TestGraph& t, const ir::Node& node) {
  CallGeometry geometry;
  geometry.graph = &t.graph;
  geometry.node = &node;
  geometry.written = {{0, 1}, {0, 6}, {0, 6}, {0, 10}};
  geometry.read_elements = 360;
  return geometry;
}

TEST(ComputeCallFeatures, DepthwisePathsSplitInteriorFromBorderPixels) {
  testing::TestGraph t;
  ir::ConvAttrs a;
  a.kernel_h = a.kernel_w = 5;
  a.pad = {2, 2, 2, 2};
  t.node(ir::OpType::kDepthwiseConv2D, {t.input({1, 6, 6, 10}), t.constant({1, 5, 5, 10})}, a);
  const FeatureVector f = compute_call_features(make_small_depthwise(t, t.graph.nodes.front()));
  // Channels [0, 10): groups [0, 4) and [4, 8), channels 8 and 9 one at a time.
  EXPECT_EQ(at(f, Feature::kInteriorPixelGroups), 8);      // 2 x 2 pixels x 2 groups
  EXPECT_EQ(at(f, Feature::kInteriorTapGroups), 200);      // x 25 taps
  EXPECT_EQ(at(f, Feature::kInteriorTapRowGroups), 40);    // x 5 window rows
  EXPECT_EQ(at(f, Feature::kInteriorTapStepGroups), 120);  // x 3 steps of two taps (the last one tap)
  EXPECT_EQ(at(f, Feature::kInteriorRunGroups), 4);        // rows 2 and 3, 2 groups
  EXPECT_EQ(at(f, Feature::kBorderPixels), 32);            // 36 - 4
  EXPECT_EQ(at(f, Feature::kBorderPixelGroups), 64);
  EXPECT_EQ(at(f, Feature::kBorderTapGroups), 952);        // (24 x 24 - 4 x 25) x 2
  EXPECT_EQ(at(f, Feature::kBorderTapRowGroups), 248);     // (24 x 6 - 4 x 5) x 2
  EXPECT_EQ(at(f, Feature::kUngroupedElements), 72);       // 36 pixels x 2 channels
  EXPECT_EQ(at(f, Feature::kUngroupedTaps), 1152);         // 576 taps x 2 channels
}

TEST(ComputeCallFeatures, AnUnrolled3x3WindowHasNoTapLoop) {
  testing::TestGraph t;
  ir::ConvAttrs a;
  a.kernel_h = a.kernel_w = 3;
  a.pad = {1, 1, 1, 1};
  t.node(ir::OpType::kDepthwiseConv2D, {t.input({1, 4, 4, 8}), t.constant({1, 3, 3, 8})}, a);
  const FeatureVector f = compute_call_features(describe_whole_call(t.graph, t.graph.nodes.front()));
  EXPECT_EQ(at(f, Feature::kInteriorTapGroups), 72);  // 2 x 2 interior pixels x 9 taps x 2 groups
  EXPECT_EQ(at(f, Feature::kInteriorTapRowGroups), 0);
  EXPECT_EQ(at(f, Feature::kInteriorTapStepGroups), 0);
}

// The planar depthwise kernel's loops (dwconv2d_planar_dsp.h): 3x3, stride
// 1, padding 1, 6 rows of 20 columns, 6 channels: one group of four and a
// short one of two. Each group widens 8 rows (6 in the input, 2 of padding)
// of 11 words (10 pairs of output pixels + 1); of an input row's words, 9
// hold two input columns ((20 + 1) / 2 - (1 + 1) / 2): the full group widens
// those four channels a step, the rest lane by lane.
TEST(ComputeCallFeatures, ThePlanarDepthwiseCountsItsWidenedRowsAndPixelPairs) {
  testing::TestGraph t;
  t.node(ir::OpType::kDepthwiseConv2D, {t.input({1, 6, 20, 6}), t.constant({1, 3, 3, 6})},
         testing::make_conv_attrs(3, 1, 1));
  const FeatureVector f = compute_call_features(describe_whole_call(t.graph, t.graph.nodes.front()));
  EXPECT_EQ(at(f, Feature::kPlanarFillRows), 16);       // 2 groups x 8 rows
  EXPECT_EQ(at(f, Feature::kPlanarFillSteps), 54);      // 1 full group x 6 input rows x 9 words
  EXPECT_EQ(at(f, Feature::kPlanarLaneWords), 312);     // 4 x (6 x 2 + 2 x 11) + 2 channels x 8 x 11
  EXPECT_EQ(at(f, Feature::kPlanarChannelRows), 36);    // 6 channels x 6 rows
  EXPECT_EQ(at(f, Feature::kPlanarPairs), 360);         // x 10 pairs
  EXPECT_EQ(at(f, Feature::kClampedElements), 0);       // float, no activation

  // A stride-2 depthwise is not the planar kernel's: no counts.
  testing::TestGraph s;
  s.node(ir::OpType::kDepthwiseConv2D, {s.input({1, 6, 20, 6}), s.constant({1, 3, 3, 6})},
         testing::make_conv_attrs(3, 2, 1));
  const FeatureVector strided = compute_call_features(describe_whole_call(s.graph, s.graph.nodes.front()));
  EXPECT_EQ(at(strided, Feature::kPlanarFillRows), 0);
  EXPECT_EQ(at(strided, Feature::kPlanarPairs), 0);
}

// ReLU6 on an int8 output of scale 6/255 and zero point -128 clamps to the
// whole range (one saturation); at scale 1/16 it clamps at 96 (compares).
TEST(ComputeCallFeatures, AnActivationThatClampsInsideTheRangeCountsItsElements) {
  for (const auto& [scale, clamped] : {std::pair{6.0f / 255.0f, 0.0}, std::pair{1.0f / 16.0f, 96.0}}) {
    testing::TestGraph t;
    t.dtype = ir::DType::kI8;
    t.node(ir::OpType::kDepthwiseConv2D, {t.input({1, 4, 4, 6}), t.constant({1, 3, 3, 6})},
           testing::make_conv_attrs(3, 1, 1));
    ir::Node& node = t.graph.nodes.front();
    node.activation = {0.0f, 6.0f};
    t.graph.tensor(node.outputs.front()).quant = ir::QuantParams{{scale}, {-128}, 0};
    EXPECT_EQ(at(compute_call_features(describe_whole_call(t.graph, node)), Feature::kClampedElements), clamped) << scale;
  }
}

TEST(ComputeCallFeatures, AChannelChunkGroupsOnlyItsAlignedFours) {
  testing::TestGraph t;
  ir::ConvAttrs a;
  a.kernel_h = a.kernel_w = 5;
  a.pad = {2, 2, 2, 2};
  t.node(ir::OpType::kDepthwiseConv2D, {t.input({1, 6, 6, 10}), t.constant({1, 5, 5, 10})}, a);
  CallGeometry g = make_small_depthwise(t, t.graph.nodes.front());
  g.written[3] = {2, 9};  // channels 2, 3 alone, [4, 8) a group, 8 alone
  const FeatureVector f = compute_call_features(g);
  EXPECT_EQ(at(f, Feature::kInteriorPixelGroups), 4);
  EXPECT_EQ(at(f, Feature::kBorderTapGroups), 476);
  EXPECT_EQ(at(f, Feature::kUngroupedElements), 108);      // 36 x 3
}

// person_detect's first layer: a depthwise of multiplier 8 over one input
// channel. Every output channel reads input channel i / 8, so no aligned
// group shares its input: all run one at a time (the portable kernels'
// per-channel loop).
TEST(ComputeCallFeatures, ADepthMultiplierRunsEveryChannelAlone) {
  testing::TestGraph t;
  ir::ConvAttrs a;
  a.kernel_h = a.kernel_w = 3;
  a.pad = {1, 1, 1, 1};
  t.node(ir::OpType::kDepthwiseConv2D, {t.input({1, 4, 4, 1}), t.constant({1, 3, 3, 8})}, a);
  const FeatureVector f = compute_call_features(describe_whole_call(t.graph, t.graph.nodes.front()));
  EXPECT_EQ(at(f, Feature::kInteriorPixelGroups), 0);
  EXPECT_EQ(at(f, Feature::kBorderPixelGroups), 0);
  EXPECT_EQ(at(f, Feature::kUngroupedElements), 128);  // 16 pixels x 8 channels
  EXPECT_EQ(at(f, Feature::kUngroupedTaps), 800);       // (10 x 10 taps, as ConvGraph) x 8
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

// tf_x8_copy moves a dense copy's bytes sixteen a step and copies any other
// pixel by pixel: bytes, not elements (a float moves four), and the pixels
// only on the strided path.
TEST(ComputeCallFeatures, ACopyCountsItsBytesAndItsStridedPixels) {
  CallGeometry g;
  g.written = {{0, 1}, {0, 3}, {0, 5}, {0, 8}};
  g.element_bytes = 4;
  const FeatureVector dense = compute_call_features(g);
  EXPECT_EQ(at(dense, Feature::kCopyBytes), 480);  // 15 pixels x 8 x 4 bytes
  EXPECT_EQ(at(dense, Feature::kStridedCopyPixels), 0);
  g.dense_copy = false;
  EXPECT_EQ(at(compute_call_features(g), Feature::kStridedCopyPixels), 15);
  const ConvGraph c;  // a call that computes a node moves no copy bytes
  EXPECT_EQ(at(compute_call_features(c.whole()), Feature::kCopyBytes), 0);
}

// The im2col kernels' dense pointwise path: a 1x1 convolution over input
// channels a multiple of four whose views' pixels are evenly spaced and whose
// input view holds the written pixels; a 3x3 window, 2 input channels, uneven
// views or a whole input under a row chunk take the general path.
TEST(ComputeCallFeatures, APointwiseConvolutionOverFoursTakesTheDensePath) {
  testing::TestGraph t;
  t.node(ir::OpType::kConv2D, {t.input({1, 4, 5, 8}), t.constant({6, 1, 1, 8})}, ir::ConvAttrs{});
  CallGeometry g;
  g.graph = &t.graph;
  g.node = &t.graph.nodes.front();
  g.written = {{0, 1}, {1, 3}, {0, 5}, {0, 6}};  // a chunk of two rows: 10 pixels
  g.read_elements = 10 * 8;                      // the input's same two rows
  EXPECT_EQ(at(compute_call_features(g), Feature::kPointwiseGroups), 4);  // ceil(10 / 3)
  g.read_elements = 4 * 5 * 8;  // the whole input: the kernel's general path
  EXPECT_EQ(at(compute_call_features(g), Feature::kPointwiseGroups), 0);
  EXPECT_EQ(at(compute_call_features(g), Feature::kGemmRunGroups), 4);
  g.read_elements = 10 * 8;
  g.even_pixels = false;
  EXPECT_EQ(at(compute_call_features(g), Feature::kPointwiseGroups), 0);
  const ConvGraph c;
  EXPECT_EQ(at(compute_call_features(c.whole()), Feature::kPointwiseGroups), 0);
}

}  // namespace
}  // namespace tinyfit::cost
