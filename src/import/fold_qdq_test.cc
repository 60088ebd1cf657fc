#include "import/fold_qdq.h"

#include <gtest/gtest.h>

#include "import/onnx_text_model.h"

namespace tinyfit::import {
namespace {

// x (int8, scale 0.5) * w (int8 per channel, scales 0.25 / 0.125) + bias.
constexpr const char* kQdqConv = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,2,2] x) => (float[1,2,2,2] y)
<float xs = {0.5}, int8 xz = {0}, int8[2,1,1,1] wq = {4, -8}, float[2] ws = {0.25, 0.125}, int8[2] wz = {0, 0},
 float[2] b = {1.0, -2.0}, float ys = {0.1}, int8 yz = {-3}>
{
  xq = QuantizeLinear(x, xs, xz)
  xd = DequantizeLinear(xq, xs, xz)
  wd = DequantizeLinear<axis = 0>(wq, ws, wz)
  c = Conv(xd, wd, b)
  yq = QuantizeLinear(c, ys, yz)
  y = DequantizeLinear(yq, ys, yz)
}
)";

TEST(FoldQdq, DequantizeConvQuantizeBecomesInt8ConvWithInt32Bias) {
  ImportOptions keep;
  keep.keep_io_quantization = true;
  auto g = import_onnx_text(kQdqConv, keep);
  ASSERT_TRUE(g) << g.error().format();
  const ir::Node* conv = nullptr;
  for (const auto& n : g->nodes) {
    if (n.op == ir::OpType::kConv2D) conv = &n;
  }
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(g->input_tensor(*conv, 0).dtype, ir::DType::kI8);
  const ir::Tensor& w = g->input_tensor(*conv, 1);
  EXPECT_EQ(w.dtype, ir::DType::kI8);
  EXPECT_EQ(w.quant->scale, (std::vector<float>{0.25f, 0.125f}));
  const ir::Tensor& b = g->input_tensor(*conv, 2);
  ASSERT_EQ(b.dtype, ir::DType::kI32);
  // bias scale = 0.5 * {0.25, 0.125}; 1.0 / 0.125 = 8, -2.0 / 0.0625 = -32.
  EXPECT_EQ(b.values<int32_t>()[0], 8);
  EXPECT_EQ(b.values<int32_t>()[1], -32);
  const ir::Tensor& y = g->output_tensor(*conv, 0);
  EXPECT_EQ(y.dtype, ir::DType::kI8);
  EXPECT_EQ(y.quant->zero_point, (std::vector<int32_t>{-3}));
  // Quantize + Conv + Dequantize remain; the conv lists the rest in model
  // order: the Dequantizes before it, the Quantize after.
  EXPECT_EQ(g->nodes.size(), 3u);
  EXPECT_EQ(conv->source_nodes, (std::vector<std::string>{"xd", "wd", "c", "yq"}));
}

TEST(FoldQdq, DroppingIoQuantizationLeavesOnlyTheInt8Conv) {
  auto g = import_onnx_text(kQdqConv);
  ASSERT_TRUE(g) << g.error().format();
  ASSERT_EQ(g->nodes.size(), 1u);
  EXPECT_EQ(g->tensor(g->inputs[0]).dtype, ir::DType::kI8);
  EXPECT_EQ(g->tensor(g->outputs[0]).dtype, ir::DType::kI8);
  EXPECT_EQ(g->tensor(g->outputs[0]).name, "y");
  EXPECT_EQ(g->nodes[0].source_nodes, (std::vector<std::string>{"xq", "xd", "wd", "c", "yq", "y"}));
}

TEST(FoldQdq, OpWithoutTrailingQuantizeStaysFloat) {
  auto g = import_onnx_text(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (int8[1,4] x) => (float[1,4] y)
<float xs = {0.5}, int8 xz = {0}>
{
  xd = DequantizeLinear(x, xs, xz)
  y = Softmax(xd)
}
)");
  ASSERT_TRUE(g) << g.error().format();
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].op, ir::OpType::kDequantize);
  EXPECT_EQ(g->nodes[1].op, ir::OpType::kSoftmax);
}

}  // namespace
}  // namespace tinyfit::import
