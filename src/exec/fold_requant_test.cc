#include "exec/fold_requant.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace tinyfit::exec {
namespace {

tf_requant_channel record(int32_t multiplier, int32_t tflite_shift) {
  const int32_t left = tflite_shift > 0 ? tflite_shift : 0, right = tflite_shift > 0 ? 0 : -tflite_shift;
  return {multiplier, left + 1, right > 0 ? int32_t{1} << (right - 1) : 0, right > 0 ? -1 : 0, right};
}

// Accumulators the record admits (|acc << left_shift| < 2^30): the bounds,
// around zero and around every rounding boundary of small shifts, and random.
std::vector<int32_t> accumulators(const tf_requant_channel& q, std::mt19937& rng) {
  const int32_t bound = (int32_t{1} << (30 - q.left_shift)) - 1;
  std::vector<int32_t> values = {0, 1, -1, 2, -2, bound, -bound, bound - 1, -bound + 1};
  for (int32_t v = -300; v <= 300; ++v) values.push_back(v);
  std::uniform_int_distribution<int32_t> any(-bound, bound);
  for (int i = 0; i < 4000; ++i) values.push_back(any(rng));
  return values;
}

TEST(FoldRequantization, FoldedRecordsGiveTheRequantisedValuePlusTheZeroPoint) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> multipliers(int32_t{1} << 30, std::numeric_limits<int32_t>::max());
  for (int32_t zero_point : {-128, -1, 0, 5, 127, 255}) {
    for (int32_t shift = -22; shift <= -1; ++shift) {
      const std::vector<tf_requant_channel> q = {record(multipliers(rng), shift), record(int32_t{1} << 30, shift),
                                                 record(std::numeric_limits<int32_t>::max(), shift)};
      const std::vector<int64_t> sums = {1, 1, 1};
      const std::vector<int32_t> bias = {0, 0, 0};
      const auto folded = fold_requantization(q, sums, bias, zero_point);
      ASSERT_TRUE(folded.has_value()) << "shift " << shift;
      for (size_t c = 0; c < q.size(); ++c) {
        for (int32_t acc : accumulators(q[c], rng)) {
          ASSERT_EQ(tf_requantize_folded(acc, &(*folded)[c]), tf_requantize(acc, &q[c]) + zero_point)
              << "shift " << shift << " multiplier " << q[c].multiplier << " zero point " << zero_point << " acc "
              << acc;
        }
      }
    }
  }
}

TEST(FoldRequantization, DeadChannelsBecomeTheirConstantOutput) {
  // Multiplier 0 (any shift, any sum) and a channel of zero weights, restated
  // as bias 2r, multiplier 2^30 and shift 0 (bind_conv_params.cc): its sums
  // are its bias.
  const std::vector<tf_requant_channel> q = {record(0, -31), record(0, 0), record(int32_t{1} << 30, 0)};
  const std::vector<int64_t> sums = {5, 5, 0};
  const std::vector<int32_t> bias = {123456, -7, -2 * 40};
  const auto folded = fold_requantization(q, sums, bias, -128);
  ASSERT_TRUE(folded.has_value());
  for (int32_t acc : {0, 1, -1, 1 << 20, -(1 << 20)}) {
    EXPECT_EQ(tf_requantize_folded(acc, &(*folded)[0]), -128);
    EXPECT_EQ(tf_requantize_folded(acc, &(*folded)[1]), -128);
  }
  EXPECT_EQ(tf_requantize_folded(bias[2], &(*folded)[2]), tf_requantize(bias[2], &q[2]) - 128);
  EXPECT_EQ(tf_requantize_folded(bias[2], &(*folded)[2]), -40 - 128);
}

TEST(FoldRequantization, ALiveChannelWithoutARightShiftOrAFarOneHasNoRecord) {
  const std::vector<int64_t> sums = {1, 1};
  const std::vector<int32_t> bias = {0, 0};
  const std::vector<tf_requant_channel> no_right = {record(int32_t{1} << 30, -3), record(int32_t{1} << 30, 1)};
  const std::vector<tf_requant_channel> far_right = {record(int32_t{1} << 30, -3), record(int32_t{1} << 30, -23)};
  EXPECT_FALSE(fold_requantization(no_right, sums, bias, 0).has_value());
  EXPECT_FALSE(fold_requantization(far_right, sums, bias, 0).has_value());
}

}  // namespace
}  // namespace tinyfit::exec
