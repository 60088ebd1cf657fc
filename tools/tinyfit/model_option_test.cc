#include "model_option.h"

#include <gtest/gtest.h>

namespace tinyfit::tools {
namespace {

TEST(ParseShapeText, ReadsDimensionsSeparatedByX) {
  auto shape = parse_shape_text("1x3x224x224");
  ASSERT_TRUE(shape);
  EXPECT_EQ(*shape, (ir::Shape{1, 3, 224, 224}));
  EXPECT_EQ(*parse_shape_text("7"), (ir::Shape{7}));
}

TEST(ParseShapeText, RejectsAnythingButPositiveIntegersAsCommandLineErrors) {
  for (const char* bad : {"", "x", "1x", "x1", "1xx2", "0x3", "1x-3", "1xAx3", "1x3.5",
                          "1x99999999999999999999", "1 x 3"}) {
    auto shape = parse_shape_text(bad);
    ASSERT_FALSE(shape) << bad;
    EXPECT_EQ(shape.error().code, ExitCode::kBadCommandLine) << bad;
    EXPECT_NE(shape.error().message.find("positive integer"), std::string::npos) << bad;
  }
}

TEST(ParseShapeText, CapsTheRank) {
  EXPECT_TRUE(parse_shape_text("1x1x1x1x1x1x1x1"));   // 8 dimensions
  EXPECT_FALSE(parse_shape_text("1x1x1x1x1x1x1x1x1"));  // 9
}

TEST(ParseInputShapes, SplitsAtTheLastEqualsSign) {
  import::ImportOptions options;
  ASSERT_TRUE(parse_input_shapes({"a=b=1x2", "x=4"}, options));
  EXPECT_EQ(options.input_shapes.at("a=b"), (ir::Shape{1, 2}));
  EXPECT_EQ(options.input_shapes.at("x"), (ir::Shape{4}));
}

TEST(ParseInputShapes, RejectsAMissingNameAndARepeatedName) {
  for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
           {"1x3"}, {"=1x3"}, {"x=1x3", "x=1x4"}, {"x="}}) {
    import::ImportOptions options;
    auto status = parse_input_shapes(bad, options);
    ASSERT_FALSE(status) << bad[0];
    EXPECT_EQ(status.error().code, ExitCode::kBadCommandLine);
  }
}

// --no-merge-identical gives the graph as the model builds it: NASNet-A's
// cells apply one ReLU per branch to a shared state, merged by default.
TEST(LoadModel, NoMergeIdenticalKeepsTheIdenticalOperators) {
  ModelOption merged{"zoo:nasnet-a-cifar", {}};
  ModelOption as_built = merged;
  as_built.keep_identical_nodes = true;
  auto merged_graph = load_model(merged);
  auto as_built_graph = load_model(as_built);
  ASSERT_TRUE(merged_graph && as_built_graph);
  EXPECT_LT(merged_graph->nodes.size(), as_built_graph->nodes.size());
}

}  // namespace
}  // namespace tinyfit::tools
