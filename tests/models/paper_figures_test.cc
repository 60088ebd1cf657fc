// The exact memory figures of the papers, under ordinary execution (DESIGN.md):
// one whole operator at a time in the model's order, activations fused,
// reshapes as aliases, explicit padding folded, I/O (de)quantization dropped.
#include <gtest/gtest.h>

#include <string>

#include "driver/memory_report.h"
#include "import/import_model.h"

namespace tinyfit {
namespace {

driver::MemoryReport analyze(const std::string& model, const std::string& order = "given",
                             bool inplace = false) {
  auto graph = import::import_model(model);
  EXPECT_TRUE(graph) << graph.error().format();
  if (!graph) return {};
  driver::AnalyzeOptions options;
  options.order = order;
  options.inplace = inplace;
  auto report = driver::analyze_memory(*graph, options);
  EXPECT_TRUE(report) << report.error().format();
  return report ? *report : driver::MemoryReport{};
}

std::string shared_model(const std::string& path) { return std::string(TINYFIT_MODELS_DIR) + "/" + path; }

// PEX Table 3: MobileNetV2-224 int8, ordinary execution, 1505 kB. The bottleneck
// is block 2: its expand output 112x112x96 = 1,204,224 bytes and its stride-2
// depthwise output 56x56x96 = 301,056 bytes, live together: 1,505,280.
constexpr int64_t kMobileNetV2OrdinaryPeakBytes = 112 * 112 * 96 + 56 * 56 * 96;
static_assert(kMobileNetV2OrdinaryPeakBytes == 1'505'280);

TEST(PaperFigures, ZooMobileNetV2Int8OrdinaryPeakIsPexTable3) {
  driver::MemoryReport r = analyze("zoo:mobilenetv2-224-int8");
  EXPECT_EQ(r.peak_bytes, kMobileNetV2OrdinaryPeakBytes);
  EXPECT_EQ(r.bottleneck.tensors.size(), 2u);
}

TEST(PaperFigures, TfliteMobileNetV2Uint8OrdinaryPeakIsPexTable3) {
  driver::MemoryReport r = analyze(shared_model("tflite/mobilenet/mobilenet_v2_1.0_224_quant_uint8.tflite"));
  EXPECT_EQ(r.peak_bytes, kMobileNetV2OrdinaryPeakBytes);
}

// MOTES reports MCUNetV2-SE-Large 224 at 1470 KiB = 1,505,280 bytes: the same
// 112x112x96 expand output and 56x56x96 depthwise output.
TEST(PaperFigures, McunetV2SeLargeOrdinaryPeakIsMotes1470KiB) {
  driver::MemoryReport r = analyze(shared_model("tflite/mcunet/mcunetv2_se_large_224.tflite"));
  EXPECT_EQ(r.peak_bytes, 1470 * 1024);
}

// The placement reaches the peak (no fragmentation) on these chains, and no
// order can go below the lower bound: lower_bound <= peak <= arena.
TEST(PaperFigures, ArenaEqualsPeakAndPeakIsAboveTheLowerBound) {
  for (const std::string& model :
       {std::string("zoo:mobilenetv2-224-int8"),
        shared_model("tflite/mcunet/mcunet-320kb-1mb_imagenet.tflite"),
        shared_model("tflite/mlperf_tiny/resnet8_int8.tflite")}) {
    driver::MemoryReport r = analyze(model);
    EXPECT_LE(r.lower_bound_bytes, r.peak_bytes) << model;
    EXPECT_EQ(r.arena_bytes, r.peak_bytes) << model;
  }
}

// A better order or in-place execution never costs memory.
TEST(PaperFigures, BestOrderAndInplaceNeverRaiseThePeak) {
  const std::string model = shared_model("tflite/mlperf_tiny/resnet8_int8.tflite");
  const int64_t given = analyze(model).peak_bytes;
  EXPECT_LE(analyze(model, "best").peak_bytes, given);
  EXPECT_LE(analyze(model, "given", true).peak_bytes, given);
}

}  // namespace
}  // namespace tinyfit
