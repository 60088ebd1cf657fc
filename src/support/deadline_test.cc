#include "support/deadline.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace tinyfit {
namespace {

TEST(Deadline, NoLimitNeverExpiresAndItsSharesHaveNoLimitEither) {
  const Deadline unlimited;
  EXPECT_FALSE(unlimited.expired());
  EXPECT_FALSE(unlimited.share(1000000).expired());
}

TEST(Deadline, AShareIsAnEqualPartOfTheTimeLeft) {
  const Deadline whole(std::chrono::seconds(60));
  // A third of about 60 s: not over at once, and a share of an expired
  // deadline is expired too.
  EXPECT_FALSE(whole.share(3).expired());
  const Deadline tiny(std::chrono::milliseconds(30));
  const Deadline part = tiny.share(30);  // about 1 ms
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(part.expired());
  EXPECT_FALSE(whole.expired());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_TRUE(tiny.expired());
  EXPECT_TRUE(tiny.share(1).expired());
}

TEST(Deadline, KeepingAFractionEndsThatMuchEarlier) {
  EXPECT_FALSE(Deadline().keeping(0.5).expired());  // no limit stays no limit
  const Deadline whole(std::chrono::seconds(60));
  EXPECT_FALSE(whole.keeping(0.1).expired());       // about 54 s left
  EXPECT_TRUE(whole.keeping(1.0).expired());        // nothing left before the kept part
  const Deadline tiny(std::chrono::milliseconds(40));
  const Deadline earlier = tiny.keeping(0.9);       // about 4 ms
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(earlier.expired());
  EXPECT_FALSE(whole.keeping(0.1).expired());
}

}  // namespace
}  // namespace tinyfit
