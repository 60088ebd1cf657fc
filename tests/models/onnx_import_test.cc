// Every ONNX model in shared/models/onnx imports and normalises; facts about
// each are asserted with their source (MANIFEST.md, the model's own graph as
// printed by onnx.helper, or arithmetic in a comment).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "import/normalize.h"
#include "import/onnx_import.h"
#include "ir/op_decl.h"
#include "ir/verify_graph.h"

namespace tinyfit::import {
namespace {

using ir::OpType;

// The same steps as import_model() for a .onnx path.
ir::Graph load(const std::string& relative, ImportOptions options = {}) {
  const std::string path = std::string(TINYFIT_MODELS_DIR) + "/onnx/" + relative;
  auto graph = import_onnx_file(path, options);
  EXPECT_TRUE(graph.has_value()) << (graph ? "" : graph.error().format());
  if (!graph) return {};
  auto step = [&](Status s) { EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().format()); };
  step(ir::infer_graph_shapes(*graph));
  step(ir::verify_graph(*graph));
  step(normalize_graph(*graph, options));
  step(ir::verify_graph(*graph));
  return std::move(*graph);
}

std::map<OpType, int> count_ops(const ir::Graph& g) {
  std::map<OpType, int> counts;
  for (const auto& n : g.nodes) ++counts[n.op];
  return counts;
}

int count(const ir::Graph& g, OpType op) { return count_ops(g)[op]; }

bool has_float_conv(const ir::Graph& g) {
  for (const auto& n : g.nodes) {
    if ((n.op == OpType::kConv2D || n.op == OpType::kDepthwiseConv2D || n.op == OpType::kFullyConnected) &&
        g.output_tensor(n, 0).dtype == ir::DType::kF32) {
      return true;
    }
  }
  return false;
}

// Every node of the model is listed exactly once in some IR node's
// source_nodes (synthesized helper nodes list only model nodes folded into them).
size_t count_listed_model_names(const ir::Graph& g) {
  std::set<std::string> names;
  size_t total = 0;
  for (const auto& n : g.nodes) {
    for (const auto& f : n.source_nodes) {
      names.insert(f);
      ++total;
    }
  }
  EXPECT_EQ(names.size(), total) << "a model node is listed twice";
  return names.size();
}

TEST(OnnxModels, MnistImportsWithHandCountedMacs) {
  ir::Graph g = load("mnist/mnist8_zoo_cntk.onnx");
  // Conv 5x5 1->8 same on 28x28: 28*28*8*25 = 156800; Conv 5x5 8->16 same on
  // 14x14: 14*14*16*200 = 627200; FC 256->10: 2560 -- 786560 MACs.
  int64_t conv_fc = 0;
  for (const auto& n : g.nodes) {
    if (n.op == OpType::kConv2D || n.op == OpType::kFullyConnected) conv_fc += ir::op_decl(n.op).count_macs(g, n);
  }
  EXPECT_EQ(conv_fc, 786560);
  EXPECT_EQ(count(g, OpType::kConv2D), 2);  // graph: 2 Conv
  EXPECT_EQ(count(g, OpType::kMaxPool), 2);  // graph: 2 MaxPool
  EXPECT_EQ(count(g, OpType::kFullyConnected), 1);  // graph: 1 MatMul with constant B
  EXPECT_EQ(count(g, OpType::kClip), 0);  // both Relus fused
  EXPECT_EQ(g.tensor(g.inputs[0]).shape, (ir::Shape{1, 28, 28, 1}));  // NCHW 1x1x28x28 -> NHWC
  EXPECT_EQ(count_listed_model_names(g), 12u);  // MANIFEST: 12 ops
}

TEST(OnnxModels, Resnet8FloatImportsNhwcWithFusedRelus) {
  ir::Graph g = load("mlperf_tiny/resnet8_cifar10_float.onnx");
  EXPECT_EQ(g.tensor(g.inputs[0]).shape, (ir::Shape{1, 32, 32, 3}));  // MANIFEST: 1x3x32x32 NCHW
  EXPECT_EQ(count(g, OpType::kConv2D), 9);  // graph: 9 Conv
  EXPECT_EQ(count(g, OpType::kAdd), 3);  // graph: 3 residual Add
  EXPECT_EQ(count(g, OpType::kClip), 0);  // 7 Relu fused into 4 Conv + 3 Add
  EXPECT_EQ(count(g, OpType::kTranspose), 0);  // NCHW->NHWC Transpose before Reshape folds away
  EXPECT_EQ(count_listed_model_names(g), 24u);  // MANIFEST: 24 ops
}

TEST(OnnxModels, VwwFloatImportsWithDepthwiseConvs) {
  ir::Graph g = load("mlperf_tiny/vww_96_float.onnx");
  // MobileNetV1: 1 stem conv, 13 depthwise + 13 pointwise = 27 Conv.
  EXPECT_EQ(count(g, OpType::kDepthwiseConv2D), 13);
  EXPECT_EQ(count(g, OpType::kConv2D), 14);
  EXPECT_EQ(count(g, OpType::kClip), 0);  // 27 Relu fused
  EXPECT_EQ(count(g, OpType::kTranspose), 0);  // the model's NCHW->NHWC Transpose folds
  EXPECT_EQ(g.tensor(g.inputs[0]).shape, (ir::Shape{1, 96, 96, 3}));
  EXPECT_EQ(count_listed_model_names(g), 59u);  // MANIFEST: 59 ops
}

TEST(OnnxModels, KwsQdqBecomesInt8WithNoFloatConv) {
  ir::Graph g = load("mlperf_tiny/kws_dscnn_qdq_int8.onnx");
  EXPECT_FALSE(has_float_conv(g));
  EXPECT_EQ(count(g, OpType::kConv2D), 5);           // graph: 5 Conv with group 1
  EXPECT_EQ(count(g, OpType::kDepthwiseConv2D), 4);  // graph: 4 Conv with group 64
  EXPECT_EQ(count(g, OpType::kQuantize), 0);         // input Quantize dropped
  EXPECT_EQ(g.tensor(g.inputs[0]).dtype, ir::DType::kI8);
  EXPECT_EQ(count_listed_model_names(g), 58u);  // MANIFEST: 58 ops
}

TEST(OnnxModels, Resnet8QdqTakesNhwcInt8InputWithoutTranspose) {
  ir::Graph g = load("mlperf_tiny/resnet8_cifar10_qdq_int8.onnx");
  EXPECT_FALSE(has_float_conv(g));
  EXPECT_EQ(count(g, OpType::kTranspose), 0);  // its NHWC->NCHW Transpose folds
  EXPECT_EQ(g.tensor(g.inputs[0]).shape, (ir::Shape{1, 32, 32, 3}));  // MANIFEST: NHWC input 1x32x32x3
  EXPECT_EQ(g.tensor(g.inputs[0]).dtype, ir::DType::kI8);
  EXPECT_EQ(count(g, OpType::kConv2D), 9);
  EXPECT_EQ(count(g, OpType::kAdd), 3);
  EXPECT_EQ(count_listed_model_names(g), 67u);  // MANIFEST: 67 ops
}

TEST(OnnxModels, VwwQdqBecomesInt8) {
  ir::Graph g = load("mlperf_tiny/vww_mobilenetv1_qdq_int8.onnx");
  EXPECT_FALSE(has_float_conv(g));
  EXPECT_EQ(count(g, OpType::kDepthwiseConv2D), 13);
  EXPECT_EQ(count(g, OpType::kConv2D), 14);
  EXPECT_EQ(g.tensor(g.inputs[0]).dtype, ir::DType::kI8);
  EXPECT_EQ(count_listed_model_names(g), 148u);  // MANIFEST: 148 ops
}

TEST(OnnxModels, AutoencoderQdqIsInt8InAndOut) {
  ir::Graph g = load("mlperf_tiny/ad_autoencoder_qdq_int8.onnx");
  EXPECT_FALSE(has_float_conv(g));
  EXPECT_EQ(count(g, OpType::kFullyConnected), 10);  // graph: 10 Gemm
  EXPECT_EQ(count(g, OpType::kQuantize) + count(g, OpType::kDequantize), 0);
  EXPECT_EQ(g.tensor(g.inputs[0]).dtype, ir::DType::kI8);
  EXPECT_EQ(g.tensor(g.outputs[0]).dtype, ir::DType::kI8);
  EXPECT_EQ(count_listed_model_names(g), 52u);  // MANIFEST: 52 ops
}

TEST(OnnxModels, AutoencoderKeepsFloatIoWhenAsked) {
  ImportOptions options;
  options.keep_io_quantization = true;
  ir::Graph g = load("mlperf_tiny/ad_autoencoder_qdq_int8.onnx", options);
  EXPECT_EQ(g.tensor(g.inputs[0]).dtype, ir::DType::kF32);
  EXPECT_EQ(g.tensor(g.outputs[0]).dtype, ir::DType::kF32);
}

TEST(OnnxModels, LightSqueezenetFoldsConstantOfShapeWeights) {
  ir::Graph g = load("onnx_light/light_squeezenet.onnx");
  EXPECT_EQ(count(g, OpType::kConv2D), 26);  // graph: 26 Conv
  EXPECT_EQ(count(g, OpType::kConcat), 8);
  EXPECT_EQ(count(g, OpType::kMean), 1);  // GlobalAveragePool
  EXPECT_EQ(count_listed_model_names(g), 105u);  // MANIFEST: 105 ops (39 ConstantOfShape folded)
}

TEST(OnnxModels, LightResnet50FoldsEveryBatchNorm) {
  ir::Graph g = load("onnx_light/light_resnet50.onnx");
  EXPECT_EQ(count(g, OpType::kConv2D), 53);
  EXPECT_EQ(count(g, OpType::kMul), 0);  // 53 BatchNormalization folded into Convs
  EXPECT_EQ(count(g, OpType::kAdd), 16);  // 16 two-input Sum
  EXPECT_EQ(count_listed_model_names(g), 415u);  // MANIFEST: 415 ops
}

TEST(OnnxModels, LightInceptionImportsLrnAndConcat) {
  ir::Graph g = load("onnx_light/light_inception_v1.onnx");
  EXPECT_EQ(count(g, OpType::kConv2D), 57);
  EXPECT_EQ(count(g, OpType::kLrn), 2);
  EXPECT_EQ(count(g, OpType::kConcat), 9);
  EXPECT_EQ(count_listed_model_names(g), 237u);  // MANIFEST: 237 ops
}

TEST(OnnxModels, LightVgg19Imports) {
  ir::Graph g = load("onnx_light/light_vgg19.onnx");
  EXPECT_EQ(count(g, OpType::kConv2D), 16);
  EXPECT_EQ(count(g, OpType::kFullyConnected), 3);
  // The Flatten of 512x7x7 needs NCHW element order: one explicit transpose.
  EXPECT_EQ(count(g, OpType::kTranspose), 1);
  EXPECT_EQ(count_listed_model_names(g), 82u);  // MANIFEST: 82 ops
}

}  // namespace
}  // namespace tinyfit::import
