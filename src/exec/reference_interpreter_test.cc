#include "exec/reference_interpreter.h"

#include <gtest/gtest.h>

#include <cstring>

#include "exec/npy.h"

namespace tinyfit::exec {
namespace {

// Builds one-node graphs by hand.
class GraphBuilder {
 public:
  ir::TensorId add_activation(const std::string& name, ir::DType dtype, ir::Shape shape, float scale = 0,
                              int32_t zero_point = 0) {
    ir::Tensor t;
    t.name = name;
    t.dtype = dtype;
    t.shape = std::move(shape);
    if (scale != 0) t.quant = ir::QuantParams{{scale}, {zero_point}, 0};
    return graph_.add_tensor(std::move(t));
  }
  template <typename T>
  ir::TensorId add_constant(const std::string& name, ir::DType dtype, ir::Shape shape, std::vector<T> values,
                            float scale = 0) {
    const ir::TensorId id = add_activation(name, dtype, std::move(shape), scale, 0);
    ir::Tensor& t = graph_.tensor(id);
    t.is_constant = true;
    t.data.resize(values.size() * sizeof(T));
    std::memcpy(t.data.data(), values.data(), t.data.size());
    return id;
  }
  void add_node(ir::OpType op, std::vector<ir::TensorId> inputs, std::vector<ir::TensorId> outputs,
                ir::OpAttrs attrs = {}) {
    ir::Node node;
    node.name = "n";
    node.op = op;
    node.inputs = std::move(inputs);
    node.outputs = std::move(outputs);
    node.attrs = std::move(attrs);
    graph_.add_node(std::move(node));
  }
  ir::Graph& graph() { return graph_; }

 private:
  ir::Graph graph_;
};

template <typename T>
TensorData make_tensor(ir::DType dtype, ir::Shape shape, std::vector<T> values) {
  TensorData t = TensorData::zeros(dtype, shape);
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

TEST(ReferenceInterpreter, Int8ConvAppliesInputOffsetAndPerChannelMultiplier) {
  GraphBuilder b;
  auto x = b.add_activation("x", ir::DType::kI8, {1, 1, 1, 2}, 0.5f, 2);
  auto w = b.add_constant<int8_t>("w", ir::DType::kI8, {1, 1, 1, 2}, {2, 3}, 0.25f);
  auto bias = b.add_constant<int32_t>("b", ir::DType::kI32, {1}, {8});
  auto y = b.add_activation("y", ir::DType::kI8, {1, 1, 1, 1}, 1.0f, -1);
  b.add_node(ir::OpType::kConv2D, {x, w, bias}, {y}, ir::ConvAttrs{});
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  // acc = 2*(12-2) + 3*(-18-2) + 8 = -32; M = 0.5*0.25/1 = 0.125 -> -4; + zp -1 = -5.
  auto out = run_reference(b.graph(), {make_tensor<int8_t>(ir::DType::kI8, {1, 1, 1, 2}, {12, -18})});
  ASSERT_TRUE(out) << out.error().format();
  EXPECT_EQ((*out)[0].values<int8_t>()[0], -5);
}

TEST(ReferenceInterpreter, Int8AveragePoolRoundsHalvesAwayFromZero) {
  GraphBuilder b;
  auto x = b.add_activation("x", ir::DType::kI8, {1, 2, 2, 2}, 0.1f, 0);
  auto y = b.add_activation("y", ir::DType::kI8, {1, 1, 1, 2}, 0.1f, 0);
  ir::PoolAttrs a;
  a.kernel_h = a.kernel_w = 2;
  b.add_node(ir::OpType::kAveragePool, {x}, {y}, a);
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  // Channel 0: (1+1+0+0)/4 = 0.5 -> 1; channel 1: (-1-1+0+0)/4 = -0.5 -> -1.
  auto out = run_reference(b.graph(), {make_tensor<int8_t>(ir::DType::kI8, {1, 2, 2, 2}, {1, -1, 1, -1, 0, 0, 0, 0})});
  ASSERT_TRUE(out) << out.error().format();
  EXPECT_EQ((*out)[0].values<int8_t>()[0], 1);
  EXPECT_EQ((*out)[0].values<int8_t>()[1], -1);
}

TEST(ReferenceInterpreter, Int8SoftmaxOfEqualLogitsIsUniform) {
  GraphBuilder b;
  auto x = b.add_activation("x", ir::DType::kI8, {1, 4}, 0.1f, 0);
  auto y = b.add_activation("y", ir::DType::kI8, {1, 4}, 1.0f / 256, -128);
  b.add_node(ir::OpType::kSoftmax, {x}, {y}, ir::SoftmaxAttrs{1, 1.0f});
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  // 0.25 on scale 1/256 at zero point -128: 64 - 128 = -64.
  auto out = run_reference(b.graph(), {make_tensor<int8_t>(ir::DType::kI8, {1, 4}, {7, 7, 7, 7})});
  ASSERT_TRUE(out) << out.error().format();
  for (int8_t v : (*out)[0].values<int8_t>()) EXPECT_EQ(v, -64);
}

TEST(ReferenceInterpreter, FloatAddBroadcastsAndClampsTheFusedActivation) {
  GraphBuilder b;
  auto x = b.add_activation("x", ir::DType::kF32, {2, 2});
  auto c = b.add_constant<float>("c", ir::DType::kF32, {2}, {10.0f, -10.0f});
  auto y = b.add_activation("y", ir::DType::kF32, {2, 2});
  b.add_node(ir::OpType::kAdd, {x, c}, {y});
  b.graph().nodes[0].activation = {0.0f, 6.0f};
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  auto out = run_reference(b.graph(), {make_tensor<float>(ir::DType::kF32, {2, 2}, {-5.0f, 12.0f, 1.0f, 2.0f})});
  ASSERT_TRUE(out) << out.error().format();
  const auto v = (*out)[0].values<float>();
  EXPECT_EQ(v[0], 5.0f);  // -5 + 10
  EXPECT_EQ(v[1], 2.0f);  // 12 - 10
  EXPECT_EQ(v[2], 6.0f);  // 11 clamped
  EXPECT_EQ(v[3], 0.0f);  // -8 clamped
}

TEST(ReferenceInterpreter, QuantizeRoundsHalfAwayFromZeroAndSaturates) {
  GraphBuilder b;
  auto x = b.add_activation("x", ir::DType::kF32, {4});
  auto y = b.add_activation("y", ir::DType::kI8, {4}, 0.5f, 1);
  b.add_node(ir::OpType::kQuantize, {x}, {y});
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  // 0.25/0.5 = 0.5 -> 1 (+1 = 2); -0.25/0.5 = -0.5 -> -1 (+1 = 0); 100 -> 127; -100 -> -128.
  auto out = run_reference(b.graph(), {make_tensor<float>(ir::DType::kF32, {4}, {0.25f, -0.25f, 100.0f, -100.0f})});
  ASSERT_TRUE(out) << out.error().format();
  const auto v = (*out)[0].values<int8_t>();
  EXPECT_EQ(v[0], 2);
  EXPECT_EQ(v[1], 0);
  EXPECT_EQ(v[2], 127);
  EXPECT_EQ(v[3], -128);
}

TEST(ReferenceInterpreter, PadFillsQuantizedTensorsWithTheZeroPoint) {
  GraphBuilder b;
  auto x = b.add_activation("x", ir::DType::kI8, {1, 2}, 0.5f, -7);
  auto y = b.add_activation("y", ir::DType::kI8, {1, 4}, 0.5f, -7);
  b.add_node(ir::OpType::kPad, {x}, {y}, ir::PadAttrs{{0, 1}, {0, 1}, 0.0f});
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  auto out = run_reference(b.graph(), {make_tensor<int8_t>(ir::DType::kI8, {1, 2}, {3, 4})});
  ASSERT_TRUE(out) << out.error().format();
  const auto v = (*out)[0].values<int8_t>();
  EXPECT_EQ(std::vector<int8_t>(v.begin(), v.end()), (std::vector<int8_t>{-7, 3, 4, -7}));
}

TEST(ReferenceInterpreter, WrongInputDtypeIsAUserErrorNamingTheInput) {
  GraphBuilder b;
  auto x = b.add_activation("image", ir::DType::kI8, {1, 2}, 0.5f, 0);
  auto y = b.add_activation("y", ir::DType::kI8, {1, 2}, 0.5f, 0);
  b.add_node(ir::OpType::kReshape, {x}, {y});
  b.graph().inputs = {x};
  b.graph().outputs = {y};
  auto out = run_reference(b.graph(), {TensorData::zeros(ir::DType::kF32, {1, 2})});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ExitCode::kBadInput);
  EXPECT_NE(out.error().message.find("'image'"), std::string::npos) << out.error().message;
  auto wrong_shape = run_reference(b.graph(), {TensorData::zeros(ir::DType::kI8, {2, 1})});
  ASSERT_FALSE(wrong_shape);
  EXPECT_NE(wrong_shape.error().message.find("expected 1x2"), std::string::npos) << wrong_shape.error().message;
}

TEST(GoldenInput, FollowsTheReadmeGenerator) {
  // x1 = (1103515245 * 12345 + 12345) mod 2^31 = 1406932606; x1 >> 16 = 21468
  // = 0x53DC; byte = 0xDC = 220.
  const TensorData t = make_golden_input(ir::DType::kU8, {1});
  EXPECT_EQ(t.values<uint8_t>()[0], 220);
}

TEST(GoldenInput, ReproducesASharedGoldenInputFile) {
  auto golden = read_npy(std::string(TINYFIT_MODELS_DIR) + "/golden/mlperf_tiny__ad01_int8.tflite/input.npy");
  ASSERT_TRUE(golden) << golden.error().format();
  EXPECT_EQ(make_golden_input(golden->dtype, golden->shape).bytes, golden->bytes);
}

}  // namespace
}  // namespace tinyfit::exec
