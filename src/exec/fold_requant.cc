#include "exec/fold_requant.h"

namespace tinyfit::exec {

namespace {

// requantize.h: the addend plus the high word stays within int32 up to here.
constexpr int32_t kMaxFoldedRightShift = 22;

}  // namespace

std::optional<std::vector<tf_requant_folded>> fold_requantization(std::span<const tf_requant_channel> requant,
                                                                  std::span<const int64_t> absolute_sums,
                                                                  std::span<const int32_t> bias,
                                                                  int32_t output_zero_point) {
  std::vector<tf_requant_folded> folded;
  folded.reserve(requant.size());
  for (size_t c = 0; c < requant.size(); ++c) {
    const tf_requant_channel& q = requant[c];
    if (q.multiplier == 0 || absolute_sums[c] == 0) {
      const int64_t constant = int64_t{output_zero_point} + (q.multiplier == 0 ? 0 : tf_requantize(bias[c], &q));
      folded.push_back({0, 0, static_cast<int32_t>(2 * constant + 1), 1});
      continue;
    }
    if (q.right_shift < 1 || q.right_shift > kMaxFoldedRightShift) return std::nullopt;
    const int64_t addend = int64_t{q.rounding} + int64_t{output_zero_point} * (int64_t{1} << q.right_shift);
    folded.push_back({q.multiplier, q.left_shift, static_cast<int32_t>(addend), q.right_shift});
  }
  return folded;
}

}  // namespace tinyfit::exec
