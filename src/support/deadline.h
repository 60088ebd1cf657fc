// A time limit that long searches poll (--time-limit). Never blocks.
#pragma once

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

 private:
  std::optional<std::chrono::steady_clock::time_point> end_;
};

}  // namespace tinyfit
