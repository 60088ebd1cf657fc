// Partial execution (PEX) on real models: the paper's MobileNetV2-224 figure,
// and the peaks of the shared MCUNet and MLPerf Tiny models printed for the
// record (ordinary / pex with 32-bit accumulators / pex with 8-bit ones).
// Each scheduler run gets a generous time limit and must finish inside it
// (optimal = the search completed); timings themselves are never asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "analysis/buffer_graph.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "import/import_model.h"
#include "ir/op_decl.h"
#include "plan/build_plan.h"
#include "plan/lower_pex.h"
#include "plan/plan_macs.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"

namespace tinyfit {
namespace {

// A few seconds each on the development machine; 120 s leaves room for a
// loaded CI runner or a sanitizer build.
constexpr double kTimeLimitSeconds = 120;

std::string shared_model(const std::string& path) { return std::string(TINYFIT_MODELS_DIR) + "/" + path; }

struct PexFigures {
  int64_t ordinary_bytes = 0;  // given order, one whole operator at a time
  int64_t pex32_bytes = 0;
  int64_t pex8_bytes = 0;
  int loops32 = 0, loops8 = 0;
  double seconds32 = 0, seconds8 = 0;
};

// Runs the scheduler with `bits`-bit accumulators and checks the plan contract.
int64_t measure_pex(const ir::Graph& graph, int bits, int& loops, double& seconds) {
  plan::PexOptions options;
  options.accumulator_bits = bits;
  options.deadline = Deadline(std::chrono::duration<double>(kTimeLimitSeconds));
  const auto start = std::chrono::steady_clock::now();
  Result<plan::PexResult> pex = plan::build_pex_plan(graph, options);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(pex) << pex.error().format();
  if (!pex) return 0;
  EXPECT_TRUE(pex->optimal) << graph.source_path << ": " << pex->note;
  Status valid = plan::verify_plan(graph, pex->plan);
  EXPECT_TRUE(valid) << graph.source_path << ": " << (valid ? "" : valid.error().message);
  // PEX: zero computational overhead.
  EXPECT_EQ(plan::count_plan_macs(graph, pex->plan), ir::count_graph_macs(graph)) << graph.source_path;
  loops = pex->loops;
  return plan::compute_plan_memory(pex->plan).peak_bytes;
}

PexFigures measure(const std::string& model) {
  PexFigures f;
  Result<ir::Graph> graph = import::import_model(model);
  EXPECT_TRUE(graph) << graph.error().format();
  if (!graph) return f;
  const analysis::BufferGraph bg = analysis::build_buffer_graph(*graph);
  f.ordinary_bytes =
      plan::compute_plan_memory(plan::build_operator_plan(*graph, bg, analysis::given_order(bg))).peak_bytes;
  f.pex32_bytes = measure_pex(*graph, 32, f.loops32, f.seconds32);
  f.pex8_bytes = measure_pex(*graph, 8, f.loops8, f.seconds8);
  std::printf("pex figures: %s: ordinary %lld, pex-32 %lld (%d loops, %.2f s), pex-8 %lld (%d loops, %.2f s)\n",
              model.c_str(), static_cast<long long>(f.ordinary_bytes), static_cast<long long>(f.pex32_bytes),
              f.loops32, f.seconds32, static_cast<long long>(f.pex8_bytes), f.loops8, f.seconds8);
  return f;
}

// PEX Table 3: MobileNetV2-224 under partial execution, 376 kB. PEX Figure 1's
// loop over the first block at 8-bit accumulators: the 224x224x3 input
// (150,528) and the 112x112x16 projection output it accumulates into
// (200,704) stay whole, plus one 112x112 channel each of the first conv's and
// the depthwise's outputs (2 x 12,544): 376,320 bytes.
constexpr int64_t kMobileNetV2Pex8Bytes = 224 * 224 * 3 + 112 * 112 * 16 + 2 * 112 * 112;
static_assert(kMobileNetV2Pex8Bytes == 376'320);

TEST(PexFigures, ZooMobileNetV2With8BitAccumulatorsIsPexTable3) {
  const PexFigures f = measure("zoo:mobilenetv2-224-int8");
  EXPECT_EQ(f.ordinary_bytes, 1'505'280);  // PEX Table 3, ordinary: 1505 kB
  EXPECT_LE(f.pex8_bytes, kMobileNetV2Pex8Bytes);
  EXPECT_GT(f.loops8, 0);
  EXPECT_LE(f.pex32_bytes, f.ordinary_bytes);
}

TEST(PexFigures, TfliteMobileNetV2With8BitAccumulatorsIsPexTable3) {
  const PexFigures f = measure(shared_model("tflite/mobilenet/mobilenet_v2_1.0_224_quant_uint8.tflite"));
  EXPECT_EQ(f.ordinary_bytes, 1'505'280);
  EXPECT_LE(f.pex8_bytes, kMobileNetV2Pex8Bytes);
  EXPECT_LE(f.pex32_bytes, f.ordinary_bytes);
}

TEST(PexFigures, SharedMcunetAndMlperfTinyModelsNeverGetWorse) {
  for (const std::string path :
       {"tflite/mcunet/mcunet-320kb-1mb_imagenet.tflite", "tflite/mcunet/mcunet-5fps_vww.tflite",
        "tflite/mcunet/mbv2-w0.35-r144_imagenet.tflite", "tflite/mcunet/mcunetv2_se_large_224.tflite",
        "tflite/mlperf_tiny/ad01_int8.tflite", "tflite/mlperf_tiny/kws_ref_model_int8.tflite",
        "tflite/mlperf_tiny/kws_ref_model_float32.tflite", "tflite/mlperf_tiny/resnet8_int8.tflite",
        "tflite/mlperf_tiny/vww_96_int8.tflite"}) {
    const PexFigures f = measure(shared_model(path));
    EXPECT_LE(f.pex32_bytes, f.ordinary_bytes) << path;
    EXPECT_LE(f.pex8_bytes, f.pex32_bytes) << path;
  }
}

// Whole PEX plans run in the exact arena against the reference interpreter:
// 32-bit accumulators are exact, so the outputs are bit-identical.
TEST(PexFigures, WholeModelPexPlansRunBitExact) {
  for (const std::string& model : {std::string("zoo:mobilenetv2-96-int8"),
                                  shared_model("tflite/mcunet/mcunet-5fps_vww.tflite"),
                                  shared_model("tflite/mlperf_tiny/vww_96_int8.tflite"),
                                  shared_model("tflite/mobilenet/mobilenet_v2_1.0_224_quant_uint8.tflite")}) {
    Result<ir::Graph> graph = import::import_model(model);
    ASSERT_TRUE(graph) << graph.error().format();
    Result<plan::PexResult> pex = plan::build_pex_plan(*graph, {});
    ASSERT_TRUE(pex) << pex.error().format();
    EXPECT_GT(pex->loops, 0) << model;
    ASSERT_TRUE(plan::place_plan(pex->plan, "greedy-by-size", {}));
    ASSERT_TRUE(plan::verify_plan(*graph, pex->plan)) << model;
    std::vector<exec::TensorData> inputs;
    for (ir::TensorId t : graph->inputs) {
      inputs.push_back(exec::make_golden_input(graph->tensor(t).dtype, graph->tensor(t).shape));
    }
    Result<std::vector<exec::TensorData>> expected = exec::run_reference(*graph, inputs);
    ASSERT_TRUE(expected) << expected.error().format();
    Result<std::vector<exec::TensorData>> actual = exec::execute_plan(*graph, pex->plan, inputs);
    ASSERT_TRUE(actual) << model << ": " << actual.error().format();
    for (size_t o = 0; o < expected->size(); ++o) {
      EXPECT_EQ((*actual)[o].bytes, (*expected)[o].bytes) << model << " output " << o;
    }
  }
}

}  // namespace
}  // namespace tinyfit
