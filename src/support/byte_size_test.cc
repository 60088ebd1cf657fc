#include "support/byte_size.h"

#include <gtest/gtest.h>

namespace tinyfit {
namespace {

TEST(ParseByteSize, PlainNumberIsBytes) { EXPECT_EQ(*parse_byte_size("262144"), 262144); }
TEST(ParseByteSize, KiBIs1024AndKBIs1000) {
  EXPECT_EQ(*parse_byte_size("256KiB"), 256 * 1024);
  EXPECT_EQ(*parse_byte_size("256KB"), 256 * 1000);
  EXPECT_EQ(*parse_byte_size("2MiB"), 2 * 1024 * 1024);
}
TEST(ParseByteSize, UnitsAreCaseInsensitive) { EXPECT_EQ(*parse_byte_size("256kib"), 262144); }
TEST(ParseByteSize, BadTextIsACommandLineError) {
  for (const char* bad : {"", "KiB", "12XB", "99999999999999999999", "9999999999TiB"}) {
    auto r = parse_byte_size(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ExitCode::kBadCommandLine) << bad;
  }
}
TEST(FormatThousands, GroupsByThree) {
  EXPECT_EQ(format_thousands(1505280), "1,505,280");
  EXPECT_EQ(format_thousands(999), "999");
  EXPECT_EQ(format_thousands(0), "0");
}

}  // namespace
}  // namespace tinyfit
