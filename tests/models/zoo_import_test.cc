// The zoo's models through the whole import (ONNX importer + normalisation):
// the canonical int8 graph the optimisers see, and the paper numbers that
// depend on it. The zoo needs no model file, so these run everywhere.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "exec/npy.h"
#include "exec/reference_interpreter.h"
#include "import/import_model.h"
#include "zoo/zoo.h"
#include "ir/graph.h"
#include "ir/op_decl.h"

namespace tinyfit::import {
namespace {

using ir::DType;
using ir::OpType;

ir::Graph import_or_fail(const std::string& model) {
  Result<ir::Graph> graph = import_model(model);
  EXPECT_TRUE(graph.has_value()) << model << ": " << (graph ? "" : graph.error().format());
  return graph ? std::move(*graph) : ir::Graph{};
}

// The node that runs `onnx_name`: the node itself or the one it was fused into.
const ir::Node* find_node_running(const ir::Graph& graph, const std::string& onnx_name) {
  for (const ir::Node& node : graph.nodes) {
    for (const std::string& source : node.source_nodes)
      if (source == onnx_name) return &node;
  }
  return nullptr;
}

int count_nodes(const ir::Graph& graph, OpType op) {
  int count = 0;
  for (const ir::Node& node : graph.nodes) count += node.op == op ? 1 : 0;
  return count;
}

TEST(ZooImport, EveryListedModelImports) {
  for (const zoo::ZooEntry& entry : zoo::list_zoo_models()) {
    SCOPED_TRACE(entry.name);
    const ir::Graph graph = import_or_fail("zoo:" + entry.name);
    EXPECT_EQ(graph.source_path, "zoo:" + entry.name);
    EXPECT_FALSE(graph.nodes.empty());
  }
}

TEST(ZooImport, MobileNetV2Int8HasOnlyInt8ActivationsAndQuantizedConvs) {
  const ir::Graph graph = import_or_fail("zoo:mobilenetv2-224-int8");
  ASSERT_FALSE(graph.nodes.empty());
  // Every QuantizeLinear/DequantizeLinear pair folds into its operator, and the
  // Quantize on the input and Dequantize on the output are dropped (DESIGN.md,
  // accounting): no float activation is left.
  EXPECT_EQ(count_nodes(graph, OpType::kQuantize), 0);
  EXPECT_EQ(count_nodes(graph, OpType::kDequantize), 0);
  for (const ir::Tensor& tensor : graph.tensors) {
    if (tensor.is_constant) continue;
    EXPECT_EQ(tensor.dtype, DType::kI8) << tensor.name;
    EXPECT_TRUE(tensor.quant.has_value()) << tensor.name;
  }
  // 52 ONNX Conv nodes (zoo_test.cc): 17 depthwise (one per block), 35 others.
  EXPECT_EQ(count_nodes(graph, OpType::kConv2D), 35);
  EXPECT_EQ(count_nodes(graph, OpType::kDepthwiseConv2D), 17);
  EXPECT_EQ(count_nodes(graph, OpType::kFullyConnected), 1);
  // Relu6 fused into its producer: no Clip left, 35 convs carry [0, 6]
  // (52 convs minus the 17 linear projections).
  EXPECT_EQ(count_nodes(graph, OpType::kClip), 0);
  int relu6 = 0;
  for (const ir::Node& node : graph.nodes) {
    if (node.op != OpType::kConv2D && node.op != OpType::kDepthwiseConv2D) continue;
    EXPECT_EQ(graph.input_tensor(node, 1).dtype, DType::kI8) << node.name << " weights";
    if (graph.has_input(node, 2)) {
      EXPECT_EQ(graph.input_tensor(node, 2).dtype, DType::kI32) << node.name;
    }
    relu6 += node.activation.min == 0.0f && node.activation.max == 6.0f ? 1 : 0;
  }
  EXPECT_EQ(relu6, 35);
  // NHWC input, int8.
  ASSERT_EQ(graph.inputs.size(), 1u);
  EXPECT_EQ(graph.tensor(graph.inputs[0]).shape, (ir::Shape{1, 224, 224, 3}));
}

TEST(ZooImport, MobileNetV2Block2HoldsThePexOrdinaryPeak) {
  // PEX Table 3: MobileNetV2-224 int8 ordinary peak 1,505,280 bytes, at the
  // depthwise conv of block 2 (the first t=6 block), whose int8 input (the
  // expand conv output, 112x112x(16x6) = 1,204,224 bytes) and output (stride 2:
  // 56x56x96 = 301,056 bytes) are live together: 1,204,224 + 301,056 = 1,505,280.
  const ir::Graph graph = import_or_fail("zoo:mobilenetv2-224-int8");
  const ir::Node* expand = find_node_running(graph, "block2/expand");
  const ir::Node* depthwise = find_node_running(graph, "block2/depthwise");
  ASSERT_TRUE(expand && depthwise);
  EXPECT_EQ(depthwise->op, OpType::kDepthwiseConv2D);
  const ir::Tensor& expanded = graph.output_tensor(*expand, 0);
  const ir::Tensor& reduced = graph.output_tensor(*depthwise, 0);
  EXPECT_EQ(expanded.shape, (ir::Shape{1, 112, 112, 96}));
  EXPECT_EQ(reduced.shape, (ir::Shape{1, 56, 56, 96}));
  EXPECT_EQ(expanded.dtype, DType::kI8);
  EXPECT_EQ(reduced.dtype, DType::kI8);
  EXPECT_EQ(expanded.size_bytes(), 1'204'224);
  EXPECT_EQ(reduced.size_bytes(), 301'056);
  EXPECT_EQ(graph.input_tensor(*depthwise, 0).name, expanded.name) << "expand feeds depthwise";
  EXPECT_EQ(expanded.size_bytes() + reduced.size_bytes(), 1'505'280);
}

TEST(ZooImport, MobileNetV2MacsAreThePublished300M) {
  const ir::Graph graph = import_or_fail("zoo:mobilenetv2-224-int8");
  int64_t conv_macs = 0;
  for (const ir::Node& node : graph.nodes) {
    if (node.op == OpType::kConv2D || node.op == OpType::kDepthwiseConv2D ||
        node.op == OpType::kFullyConnected)
      conv_macs += ir::op_decl(node.op).count_macs(graph, node);
  }
  // Paper Table 3 quotes 300M. Exactly: first conv 112x112x32x(3x3x3) =
  // 10,838,016 + depthwise 3x3 convs 20,716,416 + 1x1 convs 267,939,840 +
  // classifier 1280x1000 = 1,280,000 -> 300,774,272 (same in zoo_test.cc,
  // counted there on the ONNX proto with ONNX's shape inference).
  EXPECT_EQ(conv_macs, 300'774'272);
  // The IR also counts one operation per element for the 10 residual Adds
  // (56x56x24 + 28x28x32 x 2 + 14x14x64 x 3 + 14x14x96 x 2 + 7x7x160 x 2
  // = 216,384) and for the average pool's 7x7x1280 = 62,720 inputs: 301,053,376 in all.
  EXPECT_EQ(ir::count_graph_macs(graph), 301'053'376);
}

TEST(ZooImport, EveryOnnxNodeRunsExactlyOnce) {
  // DESIGN.md: `schedule` lists every node of the input model exactly once,
  // fused nodes where they run. The zoo's proto is the input model here.
  const std::string name = "mobilenetv2-96-int8";
  Result<onnx::ModelProto> proto = zoo::build_zoo_model(name);
  ASSERT_TRUE(proto.has_value());
  const ir::Graph graph = import_or_fail("zoo:" + name);
  // Every IR node lists the model nodes it runs in source_nodes (its own name
  // unless the importer synthesized it).
  std::map<std::string, int> runs;
  for (const ir::Node& node : graph.nodes) {
    for (const std::string& source : node.source_nodes) ++runs[source];
  }
  std::set<std::string> missing;
  for (const onnx::NodeProto& node : proto->graph().node()) {
    const auto it = runs.find(node.name());
    if (it == runs.end()) {
      missing.insert(node.name());
      continue;
    }
    EXPECT_EQ(it->second, 1) << node.name() << " (" << node.op_type() << ")";
    runs.erase(it);
  }
  EXPECT_TRUE(missing.empty()) << missing.size() << " ONNX nodes listed nowhere, e.g. '"
                               << (missing.empty() ? "" : *missing.begin()) << "'";
  EXPECT_TRUE(runs.empty()) << runs.size() << " IR node names that are not ONNX nodes, e.g. '"
                            << (runs.empty() ? "" : runs.begin()->first) << "'";
}

TEST(ZooImport, McuNetInt8ImportsWithItsPublishedMacs) {
  const ir::Graph graph = import_or_fail("zoo:mcunet-320kb-imagenet-int8");
  int64_t conv_macs = 0;
  for (const ir::Node& node : graph.nodes) {
    if (node.op == OpType::kConv2D || node.op == OpType::kDepthwiseConv2D ||
        node.op == OpType::kFullyConnected)
      conv_macs += ir::op_decl(node.op).count_macs(graph, node);
  }
  // mit-han-lab/mcunet README, mcunet-in3: 81.8M MACs; 81,785,520 counted on
  // the proto in zoo_test.cc.
  EXPECT_EQ(conv_macs, 81'785'520);
  for (const ir::Tensor& tensor : graph.tensors) {
    if (!tensor.is_constant) {
      EXPECT_EQ(tensor.dtype, DType::kI8) << tensor.name;
    }
  }
}

TEST(ZooImport, Float32ModelsKeepFloatConvs) {
  const ir::Graph graph = import_or_fail("zoo:mobilenetv2-224-f32");
  EXPECT_EQ(count_nodes(graph, OpType::kConv2D) + count_nodes(graph, OpType::kDepthwiseConv2D), 52);
  EXPECT_EQ(count_nodes(graph, OpType::kQuantize), 0);
  // Relu6 (Clip 0..6) fused into the 35 convs that are not projections.
  EXPECT_EQ(count_nodes(graph, OpType::kClip), 0);
  int relu6 = 0;
  for (const ir::Node& node : graph.nodes)
    relu6 += node.activation.min == 0.0f && node.activation.max == 6.0f ? 1 : 0;
  EXPECT_EQ(relu6, 35);
  for (const ir::Tensor& tensor : graph.tensors) {
    if (!tensor.is_constant) {
      EXPECT_EQ(tensor.dtype, DType::kF32) << tensor.name;
    }
  }
}

// Pearson correlation of two equally long float vectors.
double correlate(std::span<const float> a, std::span<const float> b) {
  double mean_a = 0, mean_b = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    mean_a += a[i];
    mean_b += b[i];
  }
  mean_a /= static_cast<double>(a.size());
  mean_b /= static_cast<double>(b.size());
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ab += (a[i] - mean_a) * (b[i] - mean_b);
    aa += (a[i] - mean_a) * (a[i] - mean_a);
    bb += (b[i] - mean_b) * (b[i] - mean_b);
  }
  return ab / std::sqrt(aa * bb);
}

// The zoo's int8 quantization parameters are fixed by analysis, not
// calibrated (onnx_builder.cc): this is the evidence that they are sane. The
// int8 model, run by the reference interpreter with float I/O kept, must give
// nearly the logits of its float32 twin (same float weights), without
// saturating them.
TEST(ZooImport, Int8OutputsTrackTheirFloat32Twins) {
  for (const std::string name : {"mobilenetv2-96", "mcunet-320kb-imagenet"}) {
    SCOPED_TRACE(name);
    ImportOptions float_io;
    float_io.keep_io_quantization = true;
    Result<ir::Graph> int8 = import_model("zoo:" + name + "-int8", float_io);
    Result<ir::Graph> f32 = import_model("zoo:" + name + "-f32");
    ASSERT_TRUE(int8 && f32);
    // An image normalised to [-1, 1], as the input quantization assumes: the
    // golden bytes (x / 255) stretched.
    const ir::Shape& shape = f32->tensor(f32->inputs.at(0)).shape;
    exec::TensorData input = exec::make_golden_input(DType::kF32, shape);
    for (float& value : input.mutable_values<float>()) value = 2.0f * value - 1.0f;
    Result<std::vector<exec::TensorData>> int8_out = exec::run_reference(*int8, {input});
    Result<std::vector<exec::TensorData>> f32_out = exec::run_reference(*f32, {input});
    ASSERT_TRUE(int8_out && f32_out) << (int8_out ? f32_out.error().format() : int8_out.error().format());
    const std::span<const float> quantized = int8_out->at(0).values<float>();
    const std::span<const float> reference = f32_out->at(0).values<float>();
    ASSERT_EQ(quantized.size(), 1000u);
    ASSERT_EQ(reference.size(), 1000u);
    // Measured 0.998 for both when written; 0.98 leaves room for kernel
    // rounding changes, while a wrong scale or zero point gives far less.
    EXPECT_GT(correlate(quantized, reference), 0.98);
    // Logits use a +-8 range (scale 8/127): none may sit at its ends.
    int saturated = 0;
    for (const float value : quantized) saturated += std::fabs(value) >= 8.0f ? 1 : 0;
    EXPECT_EQ(saturated, 0);
  }
}

// BERT-Tiny in float32, 16 tokens, through tinyfit (ONNX import, the Gelu
// fusion, the reference kernels) against numpy evaluating the same ONNX file
// op by op in float64 (tests/oracles/onnx_float_graph.py): an end-to-end
// check independent of the importer. The output is layer-normalised (unit
// variance), so 1e-5 is about a hundred float32 roundings of it.
TEST(ZooImport, BertTinyFloat32EqualsANumpyEvaluationOfItsOnnxFile) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "bert_tiny_numpy";
  std::filesystem::create_directories(dir);
  const std::string onnx_path = (dir / "model.onnx").string();
  auto model = zoo::build_zoo_model("bert-tiny-16-f32");
  ASSERT_TRUE(model) << model.error().format();
  std::ofstream(onnx_path, std::ios::binary) << model->SerializeAsString();
  const ir::Graph graph = import_or_fail("zoo:bert-tiny-16-f32");
  // Inputs uniform in [-2, 2) from a fixed linear congruential sequence.
  exec::TensorData input = exec::TensorData::zeros(DType::kF32, {1, 16, 128});
  uint32_t state = 2024;
  for (float& v : input.mutable_values<float>()) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 4.0f - 2.0f;
  }
  ASSERT_TRUE(exec::write_npy((dir / "input.npy").string(), input));
  const std::string command = std::string(TINYFIT_PYTHON) + " " + TINYFIT_SOURCE_DIR +
                              "/tests/oracles/onnx_float_graph.py " + onnx_path + " " + (dir / "input.npy").string() +
                              " " + (dir / "expected.npy").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const auto expected = exec::read_npy((dir / "expected.npy").string());
  const auto actual = exec::run_reference(graph, {input});
  ASSERT_TRUE(expected && actual);
  const auto e = expected->values<float>();
  const auto a = actual->at(0).values<float>();
  ASSERT_EQ(a.size(), e.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], e[i], 1e-5) << "element " << i;
}

}  // namespace
}  // namespace tinyfit::import
