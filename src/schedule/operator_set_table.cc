#include "schedule/operator_set_table.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "support/diag.h"

namespace tinyfit::schedule {
namespace {

constexpr OperatorSetId kEmpty = std::numeric_limits<OperatorSetId>::max();
constexpr size_t kInitialSlots = 1024;  // a power of two

}  // namespace

OperatorSetTable::OperatorSetTable(int ops) : words_(std::max(1, (ops + 63) / 64)), slots_(kInitialSlots, kEmpty) {
  TINYFIT_CHECK(ops >= 0) << "negative operator count " << ops;
}

size_t OperatorSetTable::memory_bytes() const {
  return chunks_.size() * kSetsPerChunk * static_cast<size_t>(words_) * sizeof(uint64_t) +
         slots_.capacity() * sizeof(OperatorSetId);
}

size_t OperatorSetTable::hash_of(const uint64_t* set) const {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int w = 0; w < words_; ++w) {  // splitmix64 finaliser per word
    h ^= set[w] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
  }
  return static_cast<size_t>(h);
}

void OperatorSetTable::grow_slots() {
  std::vector<OperatorSetId> slots(slots_.size() * 2, kEmpty);
  const size_t mask = slots.size() - 1;
  for (OperatorSetId id = 0; id < size_; ++id) {
    size_t slot = hash_of(words_of(id)) & mask;
    while (slots[slot] != kEmpty) slot = (slot + 1) & mask;
    slots[slot] = id;
  }
  slots_.swap(slots);
}

std::pair<OperatorSetId, bool> OperatorSetTable::insert(const uint64_t* set) {
  const size_t bytes = static_cast<size_t>(words_) * sizeof(uint64_t);
  const size_t mask = slots_.size() - 1;
  size_t slot = hash_of(set) & mask;
  while (slots_[slot] != kEmpty) {
    if (std::memcmp(words_of(slots_[slot]), set, bytes) == 0) return {slots_[slot], false};
    slot = (slot + 1) & mask;
  }
  TINYFIT_CHECK(size_ < kEmpty - 1) << "operator set table full";
  const OperatorSetId id = static_cast<OperatorSetId>(size_);
  if (id % kSetsPerChunk == 0) {
    chunks_.push_back(std::make_unique<uint64_t[]>(static_cast<size_t>(kSetsPerChunk) * words_));
  }
  std::copy(set, set + words_, chunks_.back().get() + static_cast<size_t>(id % kSetsPerChunk) * words_);
  slots_[slot] = id;
  ++size_;
  if (2 * size_ > slots_.size()) grow_slots();  // load factor <= 1/2
  return {id, true};
}

}  // namespace tinyfit::schedule
