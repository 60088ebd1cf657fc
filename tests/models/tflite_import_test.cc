// Every TFLite model in shared/models imports; facts asserted with their source.
// Sources: MANIFEST.md (ops column = TFLite operators before normalisation,
// input column), golden/<model>/meta.json (I/O dtype, shape, scale, zero
// point), and `flatc --json --raw-binary src/import/tflite_schema.fbs -- M`
// dumps of the files where noted.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "import/import_model.h"
#include "import/tflite_import.h"
#include "import/tflite_import_buffer.h"
#include "import/tflite_schema.h"
#include "ir/op_decl.h"
#include "ir/verify_graph.h"

namespace tinyfit::import {
namespace {

namespace fs = std::filesystem;

std::string model_path(const std::string& relative) {
  return std::string(TINYFIT_MODELS_DIR) + "/tflite/" + relative;
}

// Importer + shape inference + verifier, without normalisation: the graph as
// the TFLite file states it.
Result<ir::Graph> import_verified(const std::string& path) {
  TINYFIT_ASSIGN_OR_RETURN(ir::Graph graph, import_tflite_file(path, {}));
  TINYFIT_RETURN_IF_ERROR(ir::infer_graph_shapes(graph));
  TINYFIT_RETURN_IF_ERROR(ir::verify_graph(graph));
  return graph;
}

// The importer and every check after it, on bytes in memory.
Result<ir::Graph> import_tflite_buffer_for_test(const std::vector<uint8_t>& bytes) {
  TINYFIT_ASSIGN_OR_RETURN(ir::Graph graph, import_tflite_buffer(bytes, "mutant.tflite", {}));
  TINYFIT_RETURN_IF_ERROR(ir::infer_graph_shapes(graph));
  TINYFIT_RETURN_IF_ERROR(ir::verify_graph(graph));
  return graph;
}

int count_ops(const ir::Graph& graph, ir::OpType op) {
  int n = 0;
  for (const ir::Node& node : graph.nodes) n += node.op == op;
  return n;
}

struct ModelFacts {
  std::string path;
  size_t operators;  // MANIFEST.md "ops" column
  ir::Shape input;   // MANIFEST.md "input" column / meta.json
  ir::DType input_dtype;
  ir::Shape output;  // meta.json (flatc dump for the three without golden)
  ir::DType output_dtype;
};

const std::vector<ModelFacts>& all_models() {
  using ir::DType;
  static const std::vector<ModelFacts> models = {
      {"mlperf_tiny/kws_ref_model_int8.tflite", 13, {1, 49, 10, 1}, DType::kI8, {1, 12}, DType::kI8},
      {"mlperf_tiny/kws_ref_model_float32.tflite", 13, {1, 49, 10, 1}, DType::kF32, {1, 12}, DType::kF32},
      {"mlperf_tiny/vww_96_int8.tflite", 31, {1, 96, 96, 3}, DType::kI8, {1, 2}, DType::kI8},
      {"mlperf_tiny/resnet8_int8.tflite", 16, {1, 32, 32, 3}, DType::kI8, {1, 10}, DType::kI8},
      {"mlperf_tiny/ad01_int8.tflite", 10, {1, 640}, DType::kI8, {1, 640}, DType::kI8},
      {"tflite_micro/person_detect_int8.tflite", 31, {1, 96, 96, 1}, DType::kI8, {1, 2}, DType::kI8},
      {"tflite_micro/micro_speech_int8.tflite", 4, {1, 1960}, DType::kI8, {1, 4}, DType::kI8},
      {"mcunet/mcunet-5fps_vww.tflite", 101, {1, 80, 80, 3}, DType::kI8, {1, 2}, DType::kI8},
      {"mcunet/mcunet-256kb-1mb_imagenet.tflite", 122, {1, 160, 160, 3}, DType::kI8, {1, 1000}, DType::kI8},
      {"mcunet/mcunet-320kb-1mb_imagenet.tflite", 122, {1, 176, 176, 3}, DType::kI8, {1, 1000}, DType::kI8},
      {"mcunet/mbv2-w0.35-r144_imagenet.tflite", 117, {1, 144, 144, 3}, DType::kI8, {1, 1000}, DType::kI8},
      {"mcunet/mcunetv2_se_large_224.tflite", 163, {1, 224, 224, 3}, DType::kF32, {1, 1000}, DType::kF32},
      {"mobilenet/mobilenet_v1_0.25_128_quant_uint8.tflite", 31, {1, 128, 128, 3}, DType::kU8, {1, 1001}, DType::kU8},
      {"mobilenet/mobilenet_v2_1.0_224_quant_uint8.tflite", 66, {1, 224, 224, 3}, DType::kU8, {1, 1001}, DType::kU8},
  };
  return models;
}

TEST(TfliteModels, EveryModelImportsWithItsOperatorCountAndIo) {
  for (const ModelFacts& m : all_models()) {
    SCOPED_TRACE(m.path);
    auto graph = import_verified(model_path(m.path));
    ASSERT_TRUE(graph) << graph.error().format();
    // No TFLite operator of these models is folded or split at import.
    EXPECT_EQ(graph->nodes.size(), m.operators);
    ASSERT_EQ(graph->inputs.size(), 1u);
    ASSERT_EQ(graph->outputs.size(), 1u);
    EXPECT_EQ(graph->tensor(graph->inputs[0]).shape, m.input);
    EXPECT_EQ(graph->tensor(graph->inputs[0]).dtype, m.input_dtype);
    EXPECT_EQ(graph->tensor(graph->outputs[0]).shape, m.output);
    EXPECT_EQ(graph->tensor(graph->outputs[0]).dtype, m.output_dtype);
  }
}

TEST(TfliteModels, EveryModelPassesTheFullImportPipeline) {
  for (const ModelFacts& m : all_models()) {
    SCOPED_TRACE(m.path);
    auto graph = import_model(model_path(m.path));
    ASSERT_TRUE(graph) << graph.error().format();
    EXPECT_FALSE(graph->nodes.empty());
  }
}

TEST(TfliteModels, NodeNamesAreUniqueAndComeFromOutputTensors) {
  for (const ModelFacts& m : all_models()) {
    SCOPED_TRACE(m.path);
    auto graph = import_verified(model_path(m.path));
    ASSERT_TRUE(graph) << graph.error().format();
    std::set<std::string> names;
    for (const ir::Node& node : graph->nodes) EXPECT_TRUE(names.insert(node.name).second) << node.name;
  }
}

// micro_speech (flatc dump): Reshape -> DepthwiseConv2D (w [1,10,8,8], stride
// 2, SAME, RELU) -> FullyConnected (w [4,4000]) -> Softmax.
TEST(TfliteModels, MicroSpeechMacsAndSamePaddingByHand) {
  auto graph = import_verified(model_path("tflite_micro/micro_speech_int8.tflite"));
  ASSERT_TRUE(graph) << graph.error().format();
  // DW: out 25x20x8 (ceil(49/2), ceil(40/2)), 10*8 taps: 25*20*8*80 = 320,000.
  // FC: 4 outputs * 4000 inputs = 16,000. Softmax: 4 (one per element). = 336,004.
  EXPECT_EQ(ir::count_graph_macs(*graph), 336004);
  const ir::Node& dw = graph->nodes[1];
  ASSERT_EQ(dw.op, ir::OpType::kDepthwiseConv2D);
  // rows: total = (25-1)*2 + 10 - 49 = 9 -> 4 before, 5 after;
  // cols: total = (20-1)*2 + 8 - 40 = 6 -> 3 and 3.
  EXPECT_EQ(dw.attr<ir::ConvAttrs>().pad, (ir::Padding2D{4, 3, 5, 3}));
  EXPECT_EQ(dw.activation.min, 0.0f);  // fused RELU
  EXPECT_TRUE(std::isinf(dw.activation.max));
  // meta.json: input scale 0.101715684, zero point -128.
  const auto& q = graph->tensor(graph->inputs[0]).quant;
  ASSERT_TRUE(q);
  EXPECT_FLOAT_EQ(q->scale[0], 0.101715684f);
  EXPECT_EQ(q->zero_point[0], -128);
  // flatc dump: the depthwise weights carry 8 per-channel scales on axis 3.
  const ir::Tensor& w = graph->input_tensor(dw, 1);
  ASSERT_TRUE(w.quant);
  EXPECT_EQ(w.quant->scale.size(), 8u);
  EXPECT_EQ(w.quant->axis, 3);
  EXPECT_EQ(graph->input_tensor(dw, 2).dtype, ir::DType::kI32);  // int32 bias stays int32
}

// ad01 (MANIFEST: FC autoencoder, 10 FULLY_CONNECTED): 640-128-128-128-128-8-
// 128-128-128-128-640, so 2*640*128 + 6*128*128 + 2*128*8 = 264,192 MACs.
TEST(TfliteModels, Ad01MacsByHand) {
  auto graph = import_verified(model_path("mlperf_tiny/ad01_int8.tflite"));
  ASSERT_TRUE(graph) << graph.error().format();
  EXPECT_EQ(count_ops(*graph, ir::OpType::kFullyConnected), 10);
  EXPECT_EQ(ir::count_graph_macs(*graph), 264192);
}

// flatc dump: the float32 KWS keeps its 5 convolution weights in INT8 (a
// hybrid model); import dequantizes them so every operator is float.
TEST(TfliteModels, HybridKwsGetsFloatWeights) {
  auto graph = import_verified(model_path("mlperf_tiny/kws_ref_model_float32.tflite"));
  ASSERT_TRUE(graph) << graph.error().format();
  for (const ir::Node& node : graph->nodes) {
    for (ir::TensorId id : node.inputs) {
      if (id != ir::kNoTensor) {
        EXPECT_EQ(graph->tensor(id).dtype, ir::DType::kF32) << node.name;
      }
    }
  }
  // First conv: w [64,10,4,1] stride 2 SAME on 49x10: rows total (25-1)*2+10-49 = 9
  // -> 4/5, cols total (5-1)*2+4-10 = 2 -> 1/1.
  const ir::Node& conv = graph->nodes[0];
  ASSERT_EQ(conv.op, ir::OpType::kConv2D);
  EXPECT_EQ(conv.attr<ir::ConvAttrs>().pad, (ir::Padding2D{4, 1, 5, 1}));
  EXPECT_EQ(graph->output_tensor(conv, 0).shape, (ir::Shape{1, 25, 5, 64}));
}

// meta.json: float32 I/O around an int8 body; the opcodes list starts with
// QUANTIZE and ends with DEQUANTIZE, with 28 MEAN, 26 MUL and one TRANSPOSE.
TEST(TfliteModels, McunetV2KeepsQuantizeAndDequantizeAroundTheInt8Body) {
  auto graph = import_verified(model_path("mcunet/mcunetv2_se_large_224.tflite"));
  ASSERT_TRUE(graph) << graph.error().format();
  EXPECT_EQ(graph->nodes.front().op, ir::OpType::kQuantize);
  EXPECT_EQ(graph->nodes.back().op, ir::OpType::kDequantize);
  EXPECT_EQ(graph->output_tensor(graph->nodes.front(), 0).dtype, ir::DType::kI8);
  EXPECT_EQ(count_ops(*graph, ir::OpType::kMean), 28);
  EXPECT_EQ(count_ops(*graph, ir::OpType::kMul), 26);
  EXPECT_EQ(count_ops(*graph, ir::OpType::kTranspose), 1);
}

// flatc dump: input scale 0.0078125 zero point 128; output 1/256 and 0.
TEST(TfliteModels, LegacyUint8MobilenetKeepsAsymmetricParams) {
  auto graph = import_verified(model_path("mobilenet/mobilenet_v1_0.25_128_quant_uint8.tflite"));
  ASSERT_TRUE(graph) << graph.error().format();
  const auto& in = graph->tensor(graph->inputs[0]).quant;
  ASSERT_TRUE(in);
  EXPECT_FLOAT_EQ(in->scale[0], 0.0078125f);
  EXPECT_EQ(in->zero_point[0], 128);
  const auto& out = graph->tensor(graph->outputs[0]).quant;
  ASSERT_TRUE(out);
  EXPECT_FLOAT_EQ(out->scale[0], 1.0f / 256);
  EXPECT_EQ(out->zero_point[0], 0);
  EXPECT_EQ(graph->nodes[0].activation.max, 6.0f);  // first conv fuses RELU6
}

// MANIFEST.md: the SVDF model is the 'unsupported operator' example. flatc
// dump: its tensors are unnamed and operator 1 (SVDF) writes tensor 5.
TEST(TfliteModels, SvdfIsRejectedByName) {
  const std::string path = model_path("tflite_micro/keyword_scrambled_8bit.tflite");
  auto graph = import_model(path);
  ASSERT_FALSE(graph);
  EXPECT_EQ(graph.error().code, ExitCode::kBadInput);
  EXPECT_EQ(graph.error().op, "SVDF");
  EXPECT_EQ(graph.error().format(),
            "tinyfit: error: " + path + ": node 'tensor5' (SVDF): unsupported operator 'SVDF'");
}

// --- bad input: a Diag with kBadInput, never a crash ---------------------------

class TfliteBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tinyfit_tflite_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  static std::vector<uint8_t> read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static void expect_bad_input(const std::string& path, const std::string& message_part) {
    auto graph = import_model(path);
    ASSERT_FALSE(graph);
    EXPECT_EQ(graph.error().code, ExitCode::kBadInput);
    EXPECT_EQ(graph.error().file, path);
    EXPECT_NE(graph.error().message.find(message_part), std::string::npos) << graph.error().format();
  }

  fs::path dir_;
};

TEST_F(TfliteBadInput, EmptyFile) { expect_bad_input(write("empty.tflite", {}), "empty"); }

TEST_F(TfliteBadInput, MissingFile) { expect_bad_input((dir_ / "absent.tflite").string(), "cannot open"); }

TEST_F(TfliteBadInput, RandomBytes) {
  std::mt19937 rng(12345);
  std::vector<uint8_t> bytes(4096);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  expect_bad_input(write("random.tflite", bytes), "TFL3");
  // With a valid identifier, the verifier is what stops it.
  bytes[4] = 'T', bytes[5] = 'F', bytes[6] = 'L', bytes[7] = '3';
  expect_bad_input(write("random_tfl3.tflite", bytes), "corrupt or truncated");
}

TEST_F(TfliteBadInput, TruncatedRealModelAtManyLengths) {
  const std::vector<uint8_t> full = read(model_path("tflite_micro/micro_speech_int8.tflite"));
  ASSERT_EQ(full.size(), 18800u);  // MANIFEST.md bytes column
  for (size_t length : {size_t{3}, size_t{8}, size_t{64}, full.size() / 2, full.size() - 1}) {
    SCOPED_TRACE(length);
    const std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length));
    auto graph = import_model(write("cut.tflite", cut));
    ASSERT_FALSE(graph);
    EXPECT_EQ(graph.error().code, ExitCode::kBadInput);
  }
}

// Writes into our own copy of the bytes through the verified flatbuffer's
// pointers (the generated reader is read-only; the memory is ours).
template <typename T>
void overwrite(const T* field, T value) {
  flatbuffers::WriteScalar(const_cast<T*>(field), value);
}

// Address of a scalar field by vtable offset (4 + 2 * field id); generated
// tables derive privately from flatbuffers::Table.
template <typename Generated>
const uint8_t* find_field(const Generated* table, flatbuffers::voffset_t vtable_offset) {
  return reinterpret_cast<const flatbuffers::Table*>(table)->GetAddressOf(vtable_offset);
}

TEST_F(TfliteBadInput, OutOfRangeTensorIndex) {
  std::vector<uint8_t> bytes = read(model_path("tflite_micro/micro_speech_int8.tflite"));
  const auto* op = tflite::GetModel(bytes.data())->subgraphs()->Get(0)->operators()->Get(1);
  overwrite(op->inputs()->data() + 1, int32_t{9999});
  expect_bad_input(write("bad_tensor.tflite", bytes), "tensor index 9999 out of range");
}

TEST_F(TfliteBadInput, OutOfRangeBufferIndex) {
  std::vector<uint8_t> bytes = read(model_path("tflite_micro/micro_speech_int8.tflite"));
  const auto* tensor = tflite::GetModel(bytes.data())->subgraphs()->Get(0)->tensors()->Get(7);
  // Tensor.buffer is field id 2: vtable slot 4 + 2*2 = 8.
  const uint8_t* field = find_field(tensor, 8);
  ASSERT_NE(field, nullptr);
  overwrite(reinterpret_cast<const uint32_t*>(field), uint32_t{100000});
  expect_bad_input(write("bad_buffer.tflite", bytes), "buffer index 100000 out of range");
}

TEST_F(TfliteBadInput, BufferShorterThanItsShape) {
  std::vector<uint8_t> bytes = read(model_path("tflite_micro/micro_speech_int8.tflite"));
  // Tensor 7 is the FC weights [4, 4000] (16,000 bytes); claim [4, 4001].
  const auto* tensor = tflite::GetModel(bytes.data())->subgraphs()->Get(0)->tensors()->Get(7);
  overwrite(tensor->shape()->data() + 1, int32_t{4001});
  expect_bad_input(write("short_buffer.tflite", bytes), "buffer holds 16000 bytes");
}

TEST_F(TfliteBadInput, OutOfRangeOpcodeIndex) {
  std::vector<uint8_t> bytes = read(model_path("tflite_micro/micro_speech_int8.tflite"));
  const auto* op = tflite::GetModel(bytes.data())->subgraphs()->Get(0)->operators()->Get(0);
  const uint8_t* field = find_field(op, 4);  // Operator.opcode_index, id 0
  ASSERT_NE(field, nullptr);
  overwrite(reinterpret_cast<const uint32_t*>(field), uint32_t{77});
  expect_bad_input(write("bad_opcode.tflite", bytes), "opcode index 77 out of range");
}

// Seeded byte mutations of a verified-good model: each import either succeeds
// or returns a kBadInput Diag; an InternalError or a signal fails the test.
// 2,000 mutants of the 18,800-byte micro_speech run in well under a second.
TEST_F(TfliteBadInput, RandomByteMutationsNeverCrash) {
  const std::vector<uint8_t> original = read(model_path("tflite_micro/micro_speech_int8.tflite"));
  std::mt19937 rng(2024);
  int rejected = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> bytes = original;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    auto graph = import_tflite_buffer_for_test(bytes);
    if (!graph) {
      ++rejected;
      EXPECT_EQ(graph.error().code, ExitCode::kBadInput) << graph.error().format();
    }
  }
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace tinyfit::import
