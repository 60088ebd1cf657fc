#include "plan/verify_placement.h"

#include <gtest/gtest.h>

namespace tinyfit::plan {
namespace {

Placement placed(std::vector<int64_t> offsets, int64_t arena) {
  return Placement{std::move(offsets), arena, "hand", false, ""};
}

TEST(VerifyPlacement, AcceptsDisjointBytesAndDisjointLifetimes) {
  // 7 and 8 live together at step 0, in [0,10) and [10,14); 9 reuses [0,10) at step 1.
  std::vector<PlacementBuffer> b = {{7, 10, 1, 0, 0}, {8, 4, 2, 0, 1}, {9, 10, 1, 1, 1}};
  EXPECT_TRUE(verify_placement(b, placed({0, 10, 0}, 14)));
}

TEST(VerifyPlacement, NamesTheTwoBuffersThatCollide) {
  std::vector<PlacementBuffer> b = {{7, 10, 1, 0, 1}, {8, 4, 1, 1, 2}};
  Status s = verify_placement(b, placed({0, 9}, 13));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("buffer 7"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("buffer 8"), std::string::npos) << s.error().message;
}

TEST(VerifyPlacement, RejectsAMisalignedOffset) {
  std::vector<PlacementBuffer> b = {{0, 4, 4, 0, 0}};
  EXPECT_FALSE(verify_placement(b, placed({2}, 6)));
}

TEST(VerifyPlacement, RejectsABufferPastTheArena) {
  std::vector<PlacementBuffer> b = {{0, 4, 1, 0, 0}};
  EXPECT_FALSE(verify_placement(b, placed({1}, 4)));
}

TEST(VerifyPlacement, RejectsAWrongNumberOfOffsetsAndRepeatedIds) {
  std::vector<PlacementBuffer> b = {{0, 4, 1, 0, 0}, {0, 4, 1, 1, 1}};
  EXPECT_FALSE(verify_placement(b, placed({0}, 4)));
  EXPECT_FALSE(verify_placement(b, placed({0, 0}, 4)));
}

TEST(VerifyPlacement, InPlacePartnersMayStartAtTheSameOffsetButNotOverlapPartially) {
  // 1 is written over 0 at step 1 (0's last step).
  std::vector<PlacementBuffer> b = {{0, 8, 1, 0, 1}, {1, 8, 1, 1, 2, 0}};
  EXPECT_TRUE(verify_placement(b, placed({0, 0}, 8)));
  EXPECT_FALSE(verify_placement(b, placed({0, 4}, 12)));
  // Without the declaration the same start is a collision.
  b[1].may_overlap_with = -1;
  EXPECT_FALSE(verify_placement(b, placed({0, 0}, 8)));
}

TEST(VerifyPlacement, EmptyBuffersShareNoByte) {
  std::vector<PlacementBuffer> b = {{0, 8, 1, 0, 0}, {1, 0, 1, 0, 0}};
  EXPECT_TRUE(verify_placement(b, placed({0, 4}, 8)));
}

}  // namespace
}  // namespace tinyfit::plan
