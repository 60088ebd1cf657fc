// The three derivations of a segment kernel's overlap limit (closed form,
// access replay, vMCU eq. 1 as an ILP) agree, and the closed form is vMCU's
// GEMM result where vMCU states one.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "plan/segment_closed_form.h"
#include "plan/segment_ilp.h"
#include "plan/segment_simulation.h"

namespace tinyfit::plan {
namespace {

// splitmix64: the same shapes on every platform.
struct ShapeRandom {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t in(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
};

// A window over an axis of `in_extent` with random kernel, stride, dilation
// and padding on both sides; the output extent is the convolution's.
ir::Window random_window(ShapeRandom& r, int64_t in_extent, int64_t& out_extent) {
  ir::Window w;
  w.kernel = r.in(1, 5);
  w.stride = r.in(1, 3);
  w.dilation = r.in(1, 2);
  const int64_t reach = (w.kernel - 1) * w.dilation;
  w.pad_before = r.in(0, reach);
  const int64_t pad_after = r.in(0, reach);
  out_extent = (in_extent + w.pad_before + pad_after - reach - 1) / w.stride + 1;
  return w;
}

SegmentKernel random_windowed(ShapeRandom& r, SegmentOp op, Traversal traversal) {
  SegmentKernel k;
  k.op = op;
  k.traversal = traversal;
  k.element_bytes = r.in(0, 1) == 0 ? 1 : 4;
  k.batch = r.in(1, 2);
  k.in_rows = r.in(1, 9);
  k.in_cols = r.in(1, 9);
  k.in_channels = r.in(1, 12);
  k.row_window = random_window(r, k.in_rows, k.out_rows);
  k.col_window = random_window(r, k.in_cols, k.out_cols);
  k.out_channels = op == SegmentOp::kChannelwise ? k.in_channels : r.in(1, 12);
  k.output_block = r.in(1, 5);
  return k;
}

SegmentKernel random_inverted_bottleneck(ShapeRandom& r, Traversal traversal) {
  SegmentKernel k;
  k.op = SegmentOp::kInvertedBottleneck;
  k.traversal = traversal;
  k.element_bytes = 1;
  k.batch = r.in(1, 2);
  k.in_rows = r.in(1, 10);
  k.in_cols = r.in(1, 10);
  k.in_channels = r.in(1, 8);
  const bool pointwise_expand = r.in(0, 2) > 0;
  if (pointwise_expand) {
    k.mid_rows = k.in_rows;
    k.mid_cols = k.in_cols;
  } else {
    k.expand_row_window = random_window(r, k.in_rows, k.mid_rows);
    k.expand_col_window = random_window(r, k.in_cols, k.mid_cols);
  }
  k.mid_channels = r.in(1, 16);
  k.mid_block = r.in(1, 4);
  k.row_window = random_window(r, k.mid_rows, k.out_rows);
  k.col_window = random_window(r, k.mid_cols, k.out_cols);
  k.out_channels = r.in(1, 8);
  k.output_block = r.in(1, 5);
  k.residual = k.out_rows == k.in_rows && k.out_cols == k.in_cols && r.in(0, 1) == 1;
  if (k.residual) k.out_channels = k.in_channels;
  return k;
}

std::string describe(const SegmentKernel& k) {
  auto window = [](const ir::Window& w) {
    return "k" + std::to_string(w.kernel) + "s" + std::to_string(w.stride) + "d" + std::to_string(w.dilation) +
           "p" + std::to_string(w.pad_before);
  };
  std::string text = std::string(segment_op_name(k.op)) + " " + std::string(traversal_name(k.traversal)) + " n" +
                     std::to_string(k.batch) + " in " + std::to_string(k.in_rows) + "x" + std::to_string(k.in_cols) +
                     "x" + std::to_string(k.in_channels) + " out " + std::to_string(k.out_rows) + "x" +
                     std::to_string(k.out_cols) + "x" + std::to_string(k.out_channels) + " rows " +
                     window(k.row_window) + " cols " + window(k.col_window) + " block " +
                     std::to_string(k.output_block) + " bytes " + std::to_string(k.element_bytes);
  if (k.op == SegmentOp::kInvertedBottleneck) {
    text += " mid " + std::to_string(k.mid_rows) + "x" + std::to_string(k.mid_cols) + "x" +
            std::to_string(k.mid_channels) + " expand rows " + window(k.expand_row_window) + " cols " +
            window(k.expand_col_window) + (k.residual ? " residual" : "");
  }
  return text;
}

std::string describe(const OverlapLimit& limit) {
  return limit.limit_bytes ? std::to_string(*limit.limit_bytes) : "none";
}

// A GEMM as vMCU's Fig. 3: In[M, K] -> Out[M, N], one element per segment
// (a 1x1 window over M pixels, blocks of 1 channel).
SegmentKernel make_gemm(int64_t m, int64_t k, int64_t n) {
  SegmentKernel g;
  g.op = SegmentOp::kConv2D;
  g.in_cols = g.out_cols = m;
  g.in_channels = k;
  g.out_channels = n;
  g.output_block = 1;
  return g;
}

int64_t smallest_footprint(const SegmentKernel& k) {
  return compute_overlap_footprint(k, choose_overlap_offset(k, compute_overlap_limit(k), 1));
}

TEST(SegmentOverlap, GemmFootprintIsVmcusMaxPlusMinMinusOne) {
  // vMCU Fig. 1(c): In 2x3 segments, Out 2x2: 7 segments instead of 10.
  EXPECT_EQ(smallest_footprint(make_gemm(2, 3, 2)), 7);
  // vMCU §4: MinFootprint = max(MN, MK) + min(N, K) - 1, for every M, K, N.
  for (int64_t m = 1; m <= 6; ++m) {
    for (int64_t k = 1; k <= 6; ++k) {
      for (int64_t n = 1; n <= 6; ++n) {
        EXPECT_EQ(smallest_footprint(make_gemm(m, k, n)), std::max(m * n, m * k) + std::min(n, k) - 1)
            << "M " << m << " K " << k << " N " << n;
      }
    }
  }
}

TEST(SegmentOverlap, WiderStoresSaveTheChannelsOfTheLastBlock) {
  // Blocks of 4 channels: the last block is stored after every read of its
  // pixel, so N - 4 channels (not N - 1) are stored before the last reads:
  // 1x1 conv over 100 pixels, 16 -> 16 channels: 1600 + 16 - 4.
  SegmentKernel k = make_gemm(100, 16, 16);
  k.output_block = 4;
  EXPECT_EQ(smallest_footprint(k), 1612);
}

TEST(SegmentOverlap, ClosedFormEqualsTheReplayOfEveryAccess) {
  ShapeRandom r{1};
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const Traversal traversal = trial % 2 == 0 ? Traversal::kAscending : Traversal::kDescending;
    const int kind = trial / 2 % 3;
    const SegmentKernel k = kind == 2 ? random_inverted_bottleneck(r, traversal)
                                      : random_windowed(r, kind == 0 ? SegmentOp::kConv2D : SegmentOp::kChannelwise,
                                                        traversal);
    if (!check_segment_kernel(k).empty()) continue;
    ++checked;
    const OverlapLimit closed = compute_overlap_limit(k);
    const OverlapLimit replayed = simulate_overlap_limit(k);
    ASSERT_EQ(closed, replayed) << describe(k) << ": closed form " << describe(closed) << ", replay "
                                << describe(replayed);
  }
  EXPECT_GT(checked, 2000);  // most random records are consistent
}

TEST(SegmentOverlap, IlpOfVmcuEquationOneEqualsTheReplay) {
  ShapeRandom r{2};
  int checked = 0;
  for (int trial = 0; trial < 240; ++trial) {
    const Traversal traversal = trial % 2 == 0 ? Traversal::kAscending : Traversal::kDescending;
    const SegmentOp op = trial / 2 % 2 == 0 ? SegmentOp::kConv2D : SegmentOp::kChannelwise;
    const SegmentKernel k = random_windowed(r, op, traversal);
    if (!check_segment_kernel(k).empty()) continue;
    ++checked;
    const std::optional<OverlapLimit> solved = solve_overlap_limit_ilp(k);
    ASSERT_TRUE(solved.has_value()) << describe(k) << ": CBC proved no optimum";
    const OverlapLimit replayed = simulate_overlap_limit(k);
    ASSERT_EQ(*solved, replayed) << describe(k) << ": ILP " << describe(*solved) << ", replay "
                                 << describe(replayed);
  }
  EXPECT_GT(checked, 150);
}

TEST(SegmentOverlap, OffsetsBeyondTheLimitAreSafeAndTheLimitIsTight) {
  // The kernel's stores land `offset` bytes from the input's start: a store
  // over an input byte that a later load reads is a clobber. At the limit
  // nothing is clobbered; one byte closer something is.
  ShapeRandom r{3};
  for (int trial = 0; trial < 400; ++trial) {
    const Traversal traversal = trial % 2 == 0 ? Traversal::kAscending : Traversal::kDescending;
    const SegmentKernel k = trial % 3 == 2 ? random_inverted_bottleneck(r, traversal)
                                           : random_windowed(r, SegmentOp::kConv2D, traversal);
    if (!check_segment_kernel(k).empty()) continue;
    const OverlapLimit limit = compute_overlap_limit(k);
    if (!limit.limit_bytes) continue;
    auto clobbers = [&](int64_t offset) {
      // Bytes of the input overwritten so far, in input coordinates.
      std::vector<bool> overwritten(static_cast<size_t>(k.input_bytes()), false);
      bool clobbered = false;
      for_each_segment_access(k, [&](const SegmentAccess& a) {
        for (int64_t b = a.begin; b < a.end; ++b) {
          if (a.is_write) {
            const int64_t at = b + offset;
            if (at >= 0 && at < k.input_bytes()) overwritten[static_cast<size_t>(at)] = true;
          } else if (overwritten[static_cast<size_t>(b)]) {
            clobbered = true;
          }
        }
      });
      return clobbered;
    };
    const int64_t step = traversal == Traversal::kAscending ? 1 : -1;
    EXPECT_FALSE(clobbers(*limit.limit_bytes)) << describe(k) << " at its limit " << *limit.limit_bytes;
    // The rule is tight: one byte closer, the binding store's last (first)
    // byte lands on the first (last) byte of a load that follows it.
    EXPECT_TRUE(clobbers(*limit.limit_bytes + step)) << describe(k) << " one byte past its limit "
                                                     << *limit.limit_bytes;
  }
}

TEST(SegmentOverlap, RingKeepsEveryMidPixelUntilItsLastUse) {
  // Replays the fused kernel's mid pixels through a ring of R slots (slot =
  // mid index mod R) and checks every depthwise tap finds its own pixel
  // there, in both traversals; with R - 1 slots some tap does not in one of
  // them (the ring is the smallest that serves both).
  ShapeRandom r{4};
  int checked = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const Traversal traversal = trial % 2 == 0 ? Traversal::kAscending : Traversal::kDescending;
    const SegmentKernel k = random_inverted_bottleneck(r, traversal);
    if (!check_segment_kernel(k).empty()) continue;
    ++checked;
    const int64_t ring = compute_segment_ring_pixels(k);
    auto holds_in = [&](int64_t slots, bool ascending) {
      const int64_t mids = k.batch * k.mid_rows * k.mid_cols;
      const int64_t pixels = k.batch * k.out_rows * k.out_cols;
      std::vector<int64_t> slot_holds(static_cast<size_t>(slots), -1);
      int64_t computed = 0;  // mids computed, in traversal order
      for (int64_t t = 0; t < pixels; ++t) {
        const int64_t p = ascending ? t : pixels - 1 - t;
        const int64_t n = p / (k.out_rows * k.out_cols);
        const TapSpan rows = find_tap_span(k.row_window, p / k.out_cols % k.out_rows, k.mid_rows);
        const TapSpan cols = find_tap_span(k.col_window, p % k.out_cols, k.mid_cols);
        const int64_t needed = (n * k.mid_rows + (ascending ? rows.last : rows.first)) * k.mid_cols +
                               (ascending ? cols.last : cols.first);
        const int64_t needed_position = ascending ? needed : mids - 1 - needed;
        for (; computed <= find_last_computed_mid_position(k, needed_position); ++computed) {
          const int64_t mid = ascending ? computed : mids - 1 - computed;
          slot_holds[static_cast<size_t>(mid % slots)] = mid;
        }
        for (int64_t row = rows.first; row <= rows.last; row += k.row_window.dilation) {
          for (int64_t col = cols.first; col <= cols.last; col += k.col_window.dilation) {
            const int64_t mid = (n * k.mid_rows + row) * k.mid_cols + col;
            if (slot_holds[static_cast<size_t>(mid % slots)] != mid) return false;
          }
        }
      }
      return true;
    };
    auto holds = [&](int64_t slots) { return holds_in(slots, true) && holds_in(slots, false); };
    EXPECT_TRUE(holds(ring)) << describe(k) << " ring " << ring;
    if (ring > 1) {
      EXPECT_FALSE(holds(ring - 1)) << describe(k) << " ring " << ring << " is not the smallest";
    }
  }
  EXPECT_GT(checked, 300);
}

}  // namespace
}  // namespace tinyfit::plan
