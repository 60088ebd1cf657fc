// Interned sets of operators for the searches over schedules: every set is a
// fixed number of 64-bit words (one bit per operator of the segment), stored
// once and named by a dense id. No limit on the number of operators; the cost
// is words x 8 bytes per set plus 8 to 16 bytes of hash slots. The words live
// in fixed-size chunks, so growing never copies them (a search near its
// memory budget does not briefly need twice the pool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace tinyfit::schedule {

using OperatorSetId = uint32_t;

class OperatorSetTable {
 public:
  // Requires: ops >= 0.
  explicit OperatorSetTable(int ops);

  int words() const { return words_; }
  size_t size() const { return size_; }
  // Pool and slots: what the table holds now.
  size_t memory_bytes() const;

  // Returns the id of `set` (words() words) and whether it was new. Ids are
  // 0, 1, 2, ... in insertion order.
  std::pair<OperatorSetId, bool> insert(const uint64_t* set);

  // The words of set `id`; stable for the life of the table.
  const uint64_t* words_of(OperatorSetId id) const {
    return chunks_[id / kSetsPerChunk].get() + static_cast<size_t>(id % kSetsPerChunk) * words_;
  }

 private:
  static constexpr OperatorSetId kSetsPerChunk = 1 << 14;

  size_t hash_of(const uint64_t* set) const;
  void grow_slots();

  int words_;
  size_t size_ = 0;
  std::vector<std::unique_ptr<uint64_t[]>> chunks_;
  std::vector<OperatorSetId> slots_;  // open addressing, linear probing; kEmpty if free
};

inline bool contains_op(const uint64_t* set, int v) { return (set[v >> 6] >> (v & 63)) & 1u; }
inline void add_op(uint64_t* set, int v) { set[v >> 6] |= uint64_t{1} << (v & 63); }
inline void remove_op(uint64_t* set, int v) { set[v >> 6] &= ~(uint64_t{1} << (v & 63)); }

}  // namespace tinyfit::schedule
