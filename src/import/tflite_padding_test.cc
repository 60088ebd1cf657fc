#include "import/tflite_padding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "import/tflite_tensors.h"

namespace tinyfit::import {
namespace {

using tflite::Padding;

// total = max((out-1)*stride + (k-1)*dilation + 1 - in, 0); before = total/2.
TEST(TflitePadding, SamePutsTheOddElementAfter) {
  // in 49, k 10, s 2: out = ceil(49/2) = 25, total = 24*2 + 10 - 49 = 9 -> 4 / 5.
  // in 10, k 4, s 2: out = 5, total = 4*2 + 4 - 10 = 2 -> 1 / 1.
  auto pad = compute_tflite_padding(Padding::SAME, {49, 10, 10, 4, 2, 2, 1, 1});
  ASSERT_TRUE(pad);
  EXPECT_EQ(*pad, (ir::Padding2D{4, 1, 5, 1}));
}

TEST(TflitePadding, SameWithStrideTwoOnEvenInputPadsOnlyAfter) {
  // in 96, k 3, s 2: out 48, total = 47*2 + 3 - 96 = 1 -> 0 / 1 (TFLite, unlike "pad both").
  auto pad = compute_tflite_padding(Padding::SAME, {96, 96, 3, 3, 2, 2, 1, 1});
  ASSERT_TRUE(pad);
  EXPECT_EQ(*pad, (ir::Padding2D{0, 0, 1, 1}));
}

TEST(TflitePadding, SameCountsDilation) {
  // in 8, k 3, d 2 (effective 5), s 1: out 8, total = 7 + 5 - 8 = 4 -> 2 / 2.
  auto pad = compute_tflite_padding(Padding::SAME, {8, 8, 3, 3, 1, 1, 2, 2});
  ASSERT_TRUE(pad);
  EXPECT_EQ(*pad, (ir::Padding2D{2, 2, 2, 2}));
}

TEST(TflitePadding, ValidNeverPads) {
  // in 5, k 3, s 2: out = (5 - 3 + 2) / 2 = 2, total = 1*2 + 3 - 5 = 0.
  auto pad = compute_tflite_padding(Padding::VALID, {5, 6, 3, 3, 2, 2, 1, 1});
  ASSERT_TRUE(pad);
  EXPECT_EQ(*pad, (ir::Padding2D{0, 0, 0, 0}));
  auto out = compute_tflite_out_extent(Padding::VALID, 6, 3, 2, 1);  // (6 - 3 + 2) / 2 = 2
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, 2);
}

TEST(TflitePadding, RejectsWindowsThatDoNotFitOrZeroStrides) {
  EXPECT_FALSE(compute_tflite_padding(Padding::VALID, {2, 2, 3, 3, 1, 1, 1, 1}));
  EXPECT_FALSE(compute_tflite_padding(Padding::SAME, {8, 8, 3, 3, 0, 1, 1, 1}));
  EXPECT_FALSE(compute_tflite_padding(Padding::SAME, {8, 8, 3, 3, 1, 1, 1, -1}));
  EXPECT_FALSE(compute_tflite_padding(static_cast<Padding>(7), {8, 8, 3, 3, 1, 1, 1, 1}));
}

TEST(TfliteHalf, ConvertsNormalsSubnormalsAndInfinity) {
  EXPECT_EQ(convert_half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(convert_half_to_float(0xC000), -2.0f);
  EXPECT_EQ(convert_half_to_float(0x7BFF), 65504.0f);       // largest finite half
  EXPECT_EQ(convert_half_to_float(0x0001), 0x1p-24f);       // smallest subnormal
  EXPECT_EQ(convert_half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(convert_half_to_float(0x7E00)));
}

}  // namespace
}  // namespace tinyfit::import
