// A time limit that long searches poll (--time-limit). Never blocks.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>

namespace tinyfit {

class Deadline {
 public:
  // No limit.
  Deadline() = default;
  explicit Deadline(std::chrono::duration<double> budget)
      : end_(std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget)) {}

  bool expired() const { return end_ && std::chrono::steady_clock::now() >= *end_; }

  // The deadline of the first of `parts` searches that run one after another
  // on what is left of this one: an equal part of the time left, so that no
  // search starves the later ones, and one that stops early leaves its rest
  // to them. No limit stays no limit.
  Deadline share(int parts) const {
    if (!end_) return {};
    const auto now = std::chrono::steady_clock::now();
    const auto left = std::max(*end_ - now, std::chrono::steady_clock::duration::zero());
    Deadline part;
    part.end_ = now + left / std::max(parts, 1);
    return part;
  }

  // The deadline that keeps `fraction` (0 to 1) of the time left for the
  // work after it. No limit stays no limit.
  Deadline keeping(double fraction) const {
    if (!end_) return {};
    const auto now = std::chrono::steady_clock::now();
    const auto left = std::max(*end_ - now, std::chrono::steady_clock::duration::zero());
    Deadline earlier;
    earlier.end_ = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             left * (1.0 - std::clamp(fraction, 0.0, 1.0)));
    return earlier;
  }

 private:
  std::optional<std::chrono::steady_clock::time_point> end_;
};

}  // namespace tinyfit
