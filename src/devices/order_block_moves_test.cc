// order_block_moves against its oracle: replaying the order on an arena of
// distinct bytes must leave every destination holding exactly its source's
// original bytes (each move copied as memmove would), and a cycle is refused.
#include "devices/order_block_moves.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>

namespace tinyfit::devices {
namespace {

// Replays `order` on bytes 0, 1, 2, ... and checks every destination.
void expect_moves_preserve_sources(const std::vector<BlockMove>& moves, const std::vector<int>& order, int64_t arena) {
  std::vector<uint8_t> before(static_cast<size_t>(arena));
  std::iota(before.begin(), before.end(), uint8_t{0});
  std::vector<uint8_t> bytes = before;
  for (int i : order) {
    const BlockMove& m = moves[static_cast<size_t>(i)];
    std::memmove(bytes.data() + m.to_offset, bytes.data() + m.from_offset, static_cast<size_t>(m.bytes));
  }
  for (const BlockMove& m : moves) {
    EXPECT_EQ(0, std::memcmp(bytes.data() + m.to_offset, before.data() + m.from_offset, static_cast<size_t>(m.bytes)))
        << "move " << m.from_offset << " -> " << m.to_offset << " (" << m.bytes << " bytes)";
  }
}

TEST(OrderBlockMoves, AMoveThatLandsOnAnotherSourceWaitsForIt) {
  // Move 0 writes [100, 150), where move 1 reads: move 1 first.
  const std::vector<BlockMove> moves = {{0, 100, 50}, {100, 200, 50}};
  const std::optional<std::vector<int>> order = order_block_moves(moves);
  ASSERT_TRUE(order.has_value());
  EXPECT_EQ(*order, (std::vector<int>{1, 0}));
  expect_moves_preserve_sources(moves, *order, 256);
}

TEST(OrderBlockMoves, TwoBlocksLandingOnEachOtherAreRefused) {
  EXPECT_FALSE(order_block_moves({{0, 100, 50}, {100, 0, 50}}).has_value());
}

TEST(OrderBlockMoves, RandomMovesWithoutCyclesKeepEverySourcesBytes) {
  std::mt19937 random(7);
  int ordered = 0;
  for (int round = 0; round < 500; ++round) {
    std::vector<BlockMove> moves;
    const int n = 1 + static_cast<int>(random() % 4);
    // Destinations never overlap one another (distinct buffers of the tail).
    int64_t to = static_cast<int64_t>(random() % 16);
    for (int i = 0; i < n; ++i) {
      const int64_t bytes = 1 + static_cast<int64_t>(random() % 24);
      moves.push_back({static_cast<int64_t>(random() % 120), to, bytes});
      to += bytes + static_cast<int64_t>(random() % 8);
    }
    const std::optional<std::vector<int>> order = order_block_moves(moves);
    if (!order) continue;
    ++ordered;
    expect_moves_preserve_sources(moves, *order, 256);
  }
  EXPECT_GT(ordered, 250) << "most random cases have an order";
}

}  // namespace
}  // namespace tinyfit::devices
