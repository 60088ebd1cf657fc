// order-block-moves: a schedule of copies between blocks of one arena where a
// copy may land on bytes another copy has not read yet (--partition rows'
// device 0 moves its band's boundary rows into the tail's input buffers or
// the gather buffer, and from there into its next band's inputs, every plan's
// buffers sharing its arena: driver/device_row_programs.h). When the moves
// form a cycle (blocks each landing on the next one's source), one of them
// is first copied to free bytes of the arena (a bounce) and moved from there.
// A plain record in, copies out.
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

struct BlockCopy {
  int move = 0;     // the index of the move it serves
  BlockMove block;  // what it copies: the move itself, its bounce, or the move from its bounce
};

// What: copies in execution order that bring every move's source bytes (as
// they were before the first copy) to its destination. A move copies
// directly once every other move whose source its destination overlaps has
// read; when none is ready (a cycle), the smallest move some waiting move
// writes over (the lowest index among equals) is bounced: copied to the
// first free bytes of [0, arena_bytes) large enough, then moved from there.
// A move onto its own source is left to the copy (memmove's rule:
// codegen/link_transfer.h copies it from the right end). Kahn's algorithm,
// the lowest index first among the ready: deterministic, O(n^3) (n: the
// boundary tensors, a handful).
// Requires: every block inside [0, arena_bytes); destinations pairwise
// disjoint (distinct buffers).
// Guarantees: no copy writes a byte a later copy reads except its own
// source; a bounce lands on no move's source or destination nor another
// bounce still to be read, so the arena's other live bytes (the sources and
// destinations) are the only ones the schedule touches; each move is
// bounced at most once. std::nullopt exactly when a cycle is left and no
// move of it has room to bounce (arena_bytes 0: bouncing never happens).
std::optional<std::vector<BlockCopy>> order_block_moves(const std::vector<BlockMove>& moves, int64_t arena_bytes);

}  // namespace tinyfit::devices
