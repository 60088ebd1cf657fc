#include "schedule/operator_set_table.h"

#include <gtest/gtest.h>

#include <vector>

namespace tinyfit::schedule {
namespace {

TEST(OperatorSetTable, EqualSetsGetOneIdAndIdsFollowInsertionOrder) {
  OperatorSetTable sets(765);  // the largest NAS segment: 12 words
  ASSERT_EQ(sets.words(), 12);
  std::vector<uint64_t> a(12, 0);
  std::vector<uint64_t> b(12, 0);
  add_op(a.data(), 700);
  add_op(b.data(), 3);
  EXPECT_EQ(sets.insert(a.data()), std::make_pair(OperatorSetId{0}, true));
  EXPECT_EQ(sets.insert(b.data()), std::make_pair(OperatorSetId{1}, true));
  EXPECT_EQ(sets.insert(a.data()), std::make_pair(OperatorSetId{0}, false));
  EXPECT_TRUE(contains_op(sets.words_of(0), 700));
  EXPECT_FALSE(contains_op(sets.words_of(0), 3));
  EXPECT_EQ(sets.size(), 2u);
}

TEST(OperatorSetTable, SetsStayFindableAndUnmovedAcrossGrowth) {
  // 3 x 2^14 sets: several chunks and slot-table doublings.
  constexpr int kSets = 3 * (1 << 14);
  OperatorSetTable sets(130);
  std::vector<uint64_t> set(static_cast<size_t>(sets.words()), 0);
  set[0] = 1;
  const uint64_t* first = sets.words_of(sets.insert(set.data()).first);
  for (int i = 1; i < kSets; ++i) {
    set[0] = static_cast<uint64_t>(i) + 1;
    set[2] = static_cast<uint64_t>(i) % 3;
    ASSERT_EQ(sets.insert(set.data()), std::make_pair(static_cast<OperatorSetId>(i), true));
  }
  EXPECT_EQ(sets.words_of(0), first);
  for (int i = 0; i < kSets; i += 997) {
    set[0] = static_cast<uint64_t>(i) + 1;
    set[2] = static_cast<uint64_t>(i) % 3;
    EXPECT_EQ(sets.insert(set.data()), std::make_pair(static_cast<OperatorSetId>(i), false));
  }
  EXPECT_EQ(sets.size(), static_cast<size_t>(kSets));
}

}  // namespace
}  // namespace tinyfit::schedule
