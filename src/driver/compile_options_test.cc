#include "driver/compile_options.h"

#include <gtest/gtest.h>

namespace tinyfit::driver {
namespace {

TEST(ParseTechniqueList, AnySubsetInAnyOrder) {
  Result<TechniqueSet> all = parse_technique_list("pex,motes,order,inplace");
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_TRUE(all->order && all->inplace && all->pex && all->motes);
  Result<TechniqueSet> one = parse_technique_list("inplace");
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_TRUE(!one->order && one->inplace && !one->pex && !one->motes);
}

TEST(ParseTechniqueList, NoneLeavesOnlyTheOrdinaryPlan) {
  Result<TechniqueSet> none = parse_technique_list("none");
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(!none->order && !none->inplace && !none->pex && !none->motes);
}

TEST(ParseTechniqueList, BadListsAreCommandLineErrorsNamingTheProblem) {
  struct Case {
    const char* list;
    const char* message;
  };
  for (const Case& c : {Case{"order,fast", "unknown technique 'fast'"}, Case{"order,,pex", "empty item"},
                        Case{"", "empty item"}, Case{"pex,pex", "names 'pex' twice"},
                        Case{"Order", "unknown technique 'Order'"}}) {
    Result<TechniqueSet> parsed = parse_technique_list(c.list);
    ASSERT_FALSE(parsed) << c.list;
    EXPECT_EQ(parsed.error().code, ExitCode::kBadCommandLine) << c.list;
    EXPECT_NE(parsed.error().message.find(c.message), std::string::npos) << parsed.error().message;
  }
}

}  // namespace
}  // namespace tinyfit::driver
