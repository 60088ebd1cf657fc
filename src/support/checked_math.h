// Overflow-safe size arithmetic for untrusted dimensions (STYLE.md, tier 1).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

namespace tinyfit {

// Largest element count or byte size we accept anywhere: 2^40 (1 TiB) is far
// beyond any microcontroller model and leaves headroom for later products.
inline constexpr int64_t kMaxCheckedSize = int64_t{1} << 40;

inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t out = 0;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &out) || out > kMaxCheckedSize) {
    return std::nullopt;
  }
  return out;
}

inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t out = 0;
  if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &out) || out > kMaxCheckedSize) {
    return std::nullopt;
  }
  return out;
}

// Product of dims; nullopt on a negative dim or overflow.
inline std::optional<int64_t> checked_product(std::span<const int64_t> dims) {
  int64_t out = 1;
  for (int64_t d : dims) {
    auto next = checked_mul(out, d);
    if (!next) return std::nullopt;
    out = *next;
  }
  return out;
}

}  // namespace tinyfit
