// order-block-moves: an order for copies between blocks of one arena where a
// copy may land on bytes another copy has not read yet (--partition rows'
// device 0 moves its band's boundary rows into the tail's input buffers,
// both plans' buffers sharing its arena: driver/device_row_programs.h).
// A plain record in, an order out.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tinyfit::devices {

struct BlockMove {
  int64_t from_offset = 0;  // first byte read
  int64_t to_offset = 0;    // first byte written
  int64_t bytes = 0;
};

// What: the moves' indices in an order where no move writes a byte that a
// later move reads (move j after move i whenever j's destination overlaps
// i's source, i != j). A move onto its own source is left to the copy
// (memmove's rule: codegen/link_transfer.h copies it from the right end).
// Kahn's algorithm, the lowest index first among the ready: deterministic,
// O(n^2) (n: the boundary tensors, a handful).
// Guarantees: std::nullopt exactly when the constraints form a cycle (two
// blocks each landing on the other's source): no order avoids it without
// more memory.
std::optional<std::vector<int>> order_block_moves(const std::vector<BlockMove>& moves);

}  // namespace tinyfit::devices
