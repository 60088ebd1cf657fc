#include "cost/feature_mask.h"

#include <gtest/gtest.h>

#include "cost/fit_cost_table.h"
#include "cost/predict.h"

namespace tinyfit::cost {
namespace {

TEST(FeatureMask, TheIm2colGemmRowsTakeNoPerPixelPairCounts) {
  for (const char* kernel : {"tf_qs8_conv2d_im2col__dsp", "tf_qu8_conv2d_im2col_rows__dsp",
                             "tf_qs8_conv2d_im2col_accumulate__dsp"}) {
    EXPECT_FALSE(feature_applies(kernel, Feature::kPairTail)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kPairSteps)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kPairs)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kOddRunWork)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kPixelPairSlots)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kGemmDotSteps)) << kernel;
  }
  // The dot-product kernels run pixel by pixel in pairs of channels.
  EXPECT_TRUE(feature_applies("tf_qs8_conv2d_1x1__dsp", Feature::kPairTail));
  EXPECT_TRUE(feature_applies("tf_f32_conv2d_im2col", Feature::kPairs));
  EXPECT_TRUE(feature_applies("tf_qs8_conv2d_window__dsp", Feature::kOddRunWork));
}

// The im2col GEMM rows take their own loops' counts and none of the
// depthwise kernels' interior and border paths; the two gather paths' counts
// are theirs alone.
TEST(FeatureMask, TheIm2colGemmRowsTakeOnlyTheirOwnPaths) {
  for (const char* kernel : {"tf_qs8_conv2d_im2col__dsp", "tf_qu8_conv2d_im2col_wide_rows__dsp"}) {
    EXPECT_TRUE(feature_applies(kernel, Feature::kGemmRunGroups)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kGemmGatheredRows)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kGemmStagedElements)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kPointwiseGroups)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kClampedElements)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kBorderPixels)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kInteriorTapGroups)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kUngroupedElements)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kStagedElements)) << kernel;
  }
  for (const char* kernel : {"tf_qs8_conv2d_window__dsp", "tf_qs8_dwconv2d_direct__dsp", "tf_f32_conv2d_im2col"}) {
    EXPECT_FALSE(feature_applies(kernel, Feature::kGemmRunGroups)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kGemmGatheredGroups)) << kernel;
  }
}

// The window kernel's four-pixel path is its own.
TEST(FeatureMask, OnlyTheWindowRowsTakeTheFourPixelCounts) {
  for (const char* kernel : {"tf_qs8_conv2d_window__dsp", "tf_qu8_conv2d_window__dsp"}) {
    EXPECT_TRUE(feature_applies(kernel, Feature::kQuadSteps)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kQuadStepRows)) << kernel;
  }
  for (const char* kernel : {"tf_qs8_conv2d_im2col__dsp", "tf_qs8_conv2d_direct", "tf_f32_conv2d_im2col"}) {
    EXPECT_FALSE(feature_applies(kernel, Feature::kQuadRows)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kQuadSteps)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kQuadStepRows)) << kernel;
  }
}

// The planar depthwise kernel's counts are its own, and its row takes no
// count of the other depthwise kernels' loops.
TEST(FeatureMask, ThePlanarRowsTakeOnlyTheirOwnCounts) {
  for (const char* kernel : {"tf_qs8_dwconv2d_planar__dsp", "tf_qu8_dwconv2d_planar__dsp"}) {
    EXPECT_TRUE(feature_applies(kernel, Feature::kPlanarPairs)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kPlanarFillSteps)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kCalls)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kClampedElements)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kInteriorTapGroups)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kPixelPairWork)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kRows)) << kernel;
  }
  for (const char* kernel : {"tf_qs8_dwconv2d_direct__dsp", "tf_qs8_dwconv2d_direct_rows__dsp"}) {
    EXPECT_FALSE(feature_applies(kernel, Feature::kPlanarFillRows)) << kernel;
    EXPECT_FALSE(feature_applies(kernel, Feature::kPlanarPairs)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kClampedElements)) << kernel;
    EXPECT_TRUE(feature_applies(kernel, Feature::kInteriorTapGroups)) << kernel;
  }
}

// Probes of an im2col kernel whose instructions follow its pair counts
// exactly: a fit that could use kPairTail would; masked, it must use the
// GEMM's own counts, and gives kPairTail no weight.
TEST(FeatureMask, TheFitGivesAMaskedCountNoWeight) {
  CostTable table;
  const std::string kernel = "tf_qs8_conv2d_im2col__dsp";
  for (int i = 1; i <= 10; ++i) {
    PlanWork w;
    at(w.run, RunFeature::kRuns) = 1;
    FeatureVector f{};
    at(f, Feature::kCalls) = 1;
    at(f, Feature::kPairTail) = 30.0 * i;
    at(f, Feature::kGemmDotSteps) = 40.0 * i + (i % 3) * 7;
    w.add_call(kernel, f);
    table.probes.push_back({"probe" + std::to_string(i), w, 200 + 5 * at(f, Feature::kPairTail)});
  }
  fit_cost_table(table);
  EXPECT_EQ(at(table.kernels.at(kernel).coefficients, Feature::kPairTail), 0);
  EXPECT_GT(at(table.kernels.at(kernel).coefficients, Feature::kGemmDotSteps), 0);
}

// A row measured before its mask can still hold a weight for a masked count
// (the 20.0 per kPairTail the Cortex-M4 im2col row kept after d0c286c): the
// prediction leaves it out, and still uses the row's own counts.
TEST(FeatureMask, ThePredictionIgnoresAMaskedCoefficient) {
  const std::string kernel = "tf_qs8_conv2d_im2col__dsp";
  FeatureVector features{};
  at(features, Feature::kCalls) = 1;
  at(features, Feature::kGemmDotSteps) = 100;
  at(features, Feature::kPairTail) = 1000;
  at(features, Feature::kPixelPairSlots) = 1000;
  KernelCost clean;
  at(clean.coefficients, Feature::kCalls) = 50;
  at(clean.coefficients, Feature::kGemmDotSteps) = 3;
  KernelCost stale = clean;
  at(stale.coefficients, Feature::kPairTail) = 20;
  at(stale.coefficients, Feature::kPixelPairSlots) = 2.5;
  EXPECT_EQ(predict_kernel_instructions(kernel, stale, features), 350);
  EXPECT_EQ(predict_kernel_instructions(kernel, clean, features), 350);

  CostTable table;
  table.target = "test";
  table.kernels[kernel] = stale;
  PlanWork work;
  work.add_call(kernel, features);
  const Result<double> predicted = predict_instructions(table, work);
  ASSERT_TRUE(predicted.has_value());
  EXPECT_EQ(*predicted, 350);

  // A kernel the mask does not touch keeps every weight.
  EXPECT_EQ(predict_kernel_instructions("tf_qs8_conv2d_1x1__dsp", stale, features), 350 + 20000 + 2500);
}

}  // namespace
}  // namespace tinyfit::cost
