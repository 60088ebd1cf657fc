// order_block_moves against its oracle: replaying the copies on an arena of
// distinct bytes must leave every destination holding exactly its source's
// original bytes (each copy as memmove would), and every copy that is not
// its move's final one (a bounce) must stay inside the arena, off every
// destination and off the sources of the moves still to run (the bytes the
// caller keeps live).
#include "devices/order_block_moves.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>

namespace tinyfit::devices {
namespace {

bool overlap(int64_t a_begin, int64_t a_bytes, int64_t b_begin, int64_t b_bytes) {
  return a_begin < b_begin + b_bytes && b_begin < a_begin + a_bytes;
}

// Replays `copies` on bytes 0, 1, 2, ... and checks every destination and
// every bounce.
void expect_moves_preserve_sources(const std::vector<BlockMove>& moves, const std::vector<BlockCopy>& copies,
                                   int64_t arena) {
  std::vector<uint8_t> before(static_cast<size_t>(arena));
  std::iota(before.begin(), before.end(), uint8_t{0});
  std::vector<uint8_t> bytes = before;
  std::vector<bool> moved(moves.size(), false);
  for (const BlockCopy& c : copies) {
    const BlockMove& m = c.block;
    ASSERT_GE(m.to_offset, 0);
    ASSERT_LE(m.to_offset + m.bytes, arena);
    std::memmove(bytes.data() + m.to_offset, bytes.data() + m.from_offset, static_cast<size_t>(m.bytes));
    if (m.to_offset == moves[static_cast<size_t>(c.move)].to_offset) {
      moved[static_cast<size_t>(c.move)] = true;
      continue;
    }
    for (size_t i = 0; i < moves.size(); ++i) {
      EXPECT_FALSE(!moved[i] && overlap(m.to_offset, m.bytes, moves[i].from_offset, moves[i].bytes))
          << "a bounce on a source still to be read";
      EXPECT_FALSE(overlap(m.to_offset, m.bytes, moves[i].to_offset, moves[i].bytes)) << "a bounce on a destination";
    }
  }
  for (const BlockMove& m : moves) {
    EXPECT_EQ(0, std::memcmp(bytes.data() + m.to_offset, before.data() + m.from_offset, static_cast<size_t>(m.bytes)))
        << "move " << m.from_offset << " -> " << m.to_offset << " (" << m.bytes << " bytes)";
  }
}

int count_bounces(const std::vector<BlockCopy>& copies, size_t moves) {
  return static_cast<int>(copies.size() - moves);
}

TEST(OrderBlockMoves, AMoveThatLandsOnAnotherSourceWaitsForIt) {
  // Move 0 writes [100, 150), where move 1 reads: move 1 first, no bounce.
  const std::vector<BlockMove> moves = {{0, 100, 50}, {100, 200, 50}};
  const std::optional<std::vector<BlockCopy>> copies = order_block_moves(moves, 256);
  ASSERT_TRUE(copies.has_value());
  ASSERT_EQ(copies->size(), 2u);
  EXPECT_EQ((*copies)[0].move, 1);
  EXPECT_EQ((*copies)[1].move, 0);
  expect_moves_preserve_sources(moves, *copies, 256);
}

TEST(OrderBlockMoves, TwoBlocksLandingOnEachOtherBounceOneThroughFreeBytes) {
  // A swap of [0, 50) and [100, 150): the smaller (30 bytes, move 1) is
  // copied to the first free bytes, [50, 80), then each move runs.
  const std::vector<BlockMove> moves = {{0, 100, 50}, {100, 0, 30}};
  const std::optional<std::vector<BlockCopy>> copies = order_block_moves(moves, 256);
  ASSERT_TRUE(copies.has_value());
  ASSERT_EQ(copies->size(), 3u);
  EXPECT_EQ((*copies)[0].move, 1);
  EXPECT_EQ((*copies)[0].block.to_offset, 50);
  expect_moves_preserve_sources(moves, *copies, 256);
}

TEST(OrderBlockMoves, ACycleWithoutFreeBytesIsRefused) {
  // A swap of [0, 50) and [50, 100) in 100 bytes: no byte free (nor in 0).
  EXPECT_FALSE(order_block_moves({{0, 50, 50}, {50, 0, 50}}, 100).has_value());
  EXPECT_FALSE(order_block_moves({{0, 50, 50}, {50, 0, 50}}, 0).has_value());
  // With 10 more bytes, still no room for a 50-byte block.
  EXPECT_FALSE(order_block_moves({{0, 50, 50}, {50, 0, 50}}, 110).has_value());
}

TEST(OrderBlockMoves, McunetV2SeLargeStageSixGatherBouncesItsSmallestBlock) {
  // Device 0 of MCUNetV2-SE-Large on 2 x 128 KiB gathering stage 6's three
  // boundary tensors into a buffer from offset 0 (the tinyfit compile
  // command in docs/benchmarks/devices.md): 0 -> 57344 must read before
  // 12544 -> 0 writes, which must read before 62720 -> 28672 writes, which
  // must read before 0 -> 57344 writes: a cycle. Sources and destinations
  // cover [0, 41216) and [57344, 66304), so the 3584-byte block bounces
  // through [41216, 44800) even inside the gather buffer's 66,304 bytes.
  const std::vector<BlockMove> moves = {{0, 57344, 7168}, {12544, 0, 28672}, {62720, 28672, 3584}};
  EXPECT_FALSE(order_block_moves(moves, 0).has_value());
  const std::optional<std::vector<BlockCopy>> copies = order_block_moves(moves, 66304);
  ASSERT_TRUE(copies.has_value());
  EXPECT_EQ(count_bounces(*copies, moves.size()), 1);
  EXPECT_EQ((*copies)[0].move, 2);
  EXPECT_EQ((*copies)[0].block.to_offset, 41216);
  expect_moves_preserve_sources(moves, *copies, 66304);
}

// Random blocks in 256 bytes: destinations never overlap one another
// (distinct buffers), sources anywhere below 144.
std::vector<BlockMove> make_random_moves(std::mt19937& random) {
  std::vector<BlockMove> moves;
  const int n = 1 + static_cast<int>(random() % 4);
  int64_t to = static_cast<int64_t>(random() % 16);
  for (int i = 0; i < n; ++i) {
    const int64_t bytes = 1 + static_cast<int64_t>(random() % 24);
    moves.push_back({static_cast<int64_t>(random() % 120), to, bytes});
    to += bytes + static_cast<int64_t>(random() % 8);
  }
  return moves;
}

TEST(OrderBlockMoves, RandomMovesWithoutFreeBytesNeverBounce) {
  std::mt19937 random(7);
  int ordered = 0;
  for (int round = 0; round < 500; ++round) {
    const std::vector<BlockMove> moves = make_random_moves(random);
    const std::optional<std::vector<BlockCopy>> copies = order_block_moves(moves, 0);
    if (!copies) continue;
    ++ordered;
    EXPECT_EQ(count_bounces(*copies, moves.size()), 0);
    expect_moves_preserve_sources(moves, *copies, 256);
  }
  EXPECT_GT(ordered, 250) << "most random cases have an order";
}

TEST(OrderBlockMoves, RandomMovesWithFreeBytesAlwaysArrive) {
  // Sources end below 144 and destinations below 16 + 4 * (24 + 7) = 140,
  // so an arena of 256 leaves at least 112 free bytes above them: more than
  // the largest block (24) for each of at most 4 bounces.
  std::mt19937 random(11);
  int bounced = 0;
  for (int round = 0; round < 500; ++round) {
    const std::vector<BlockMove> moves = make_random_moves(random);
    const std::optional<std::vector<BlockCopy>> copies = order_block_moves(moves, 256);
    ASSERT_TRUE(copies.has_value()) << "round " << round;
    bounced += count_bounces(*copies, moves.size()) > 0 ? 1 : 0;
    expect_moves_preserve_sources(moves, *copies, 256);
  }
  EXPECT_GT(bounced, 10) << "enough random cases have a cycle";
}

}  // namespace
}  // namespace tinyfit::devices
