// Top-1 agreement between the int8 and float versions of the same network, run
// by the reference interpreter: evidence that quantized kernels, importers and
// the float path agree on what the network computes (bit-exactness against
// TFLite Micro is golden_test's job; this catches a wrong layout, scale or
// operator in either path that a golden file for one input could miss).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "exec/reference_interpreter.h"
#include "import/import_model.h"

namespace tinyfit {
namespace {

constexpr int kSamples = 32;

struct ModelPair {
  const char* name;
  const char* float_model;
  const char* int8_model;
  // true: the image is full-range bytes as pixel values (resnet8's int8 input
  // has scale 1, zero point -128: real 0..255, so byte / 255 would be a black
  // image); false: the golden convention byte / 255.
  bool pixels_0_to_255 = false;
  // Bound on |dequantized int8 output - float output| over all samples and
  // classes. Measured (32 seeds): kws 0.061, vww 0.026, resnet8 0.271 (resnet8
  // sees noise images with close calls between two classes, where 8-bit
  // activations move probabilities most). Bounds leave ~30% headroom; a wrong
  // scale, layout or kernel moves probabilities by far more (0.8 when kws
  // saturates).
  float max_output_difference = 0.1f;
};

std::string model_path(const char* relative) { return std::string(TINYFIT_MODELS_DIR) + "/" + relative; }

// Index of the largest output element (first one on ties).
int64_t find_top_class(const exec::TensorData& output) {
  std::vector<double> values;
  if (output.dtype == ir::DType::kF32) {
    for (float v : output.values<float>()) values.push_back(v);
  } else if (output.dtype == ir::DType::kI8) {
    for (int8_t v : output.values<int8_t>()) values.push_back(v);
  } else if (output.dtype == ir::DType::kU8) {
    for (uint8_t v : output.values<uint8_t>()) values.push_back(v);
  }
  return std::max_element(values.begin(), values.end()) - values.begin();
}

void check_agreement(const ModelPair& pair, int min_agreeing) {
  auto float_graph = import::import_model(model_path(pair.float_model));
  ASSERT_TRUE(float_graph) << float_graph.error().format();
  auto int8_graph = import::import_model(model_path(pair.int8_model));
  ASSERT_TRUE(int8_graph) << int8_graph.error().format();
  ASSERT_EQ(float_graph->inputs.size(), 1u);
  ASSERT_EQ(int8_graph->inputs.size(), 1u);
  const ir::Tensor& int8_input = int8_graph->tensor(int8_graph->inputs[0]);
  const ir::Tensor& float_input = float_graph->tensor(float_graph->inputs[0]);
  ASSERT_EQ(int8_input.dtype, ir::DType::kI8);
  ASSERT_EQ(float_input.dtype, ir::DType::kF32);
  ASSERT_TRUE(int8_input.quant.has_value());
  // Both are NHWC in the IR (the ONNX importer transposes NCHW inputs), so the
  // same flat element order is the same image.
  ASSERT_EQ(float_input.num_elements(), int8_input.num_elements());
  const float scale = int8_input.quant->scale[0];
  const int32_t zero_point = int8_input.quant->zero_point[0];

  int agreeing = 0;
  std::set<int64_t> int8_classes;
  float max_output_difference = 0;
  for (int seed = 1; seed <= kSamples; ++seed) {
    // The golden convention's image (byte / 255), quantized with the int8
    // model's input parameters; the float model gets exactly the real values
    // that int8 input stands for, so both see the same image even where the
    // float model was exported with other input scaling. (Full-range random
    // int8 bytes instead drive kws's activations into int8 saturation, where
    // the two legitimately part ways: 8/32 measured.)
    exec::TensorData image =
        exec::make_golden_input(ir::DType::kF32, int8_input.shape, static_cast<uint32_t>(seed));
    if (pair.pixels_0_to_255) {
      for (float& v : image.mutable_values<float>()) v *= 255.0f;
    }
    exec::TensorData q = exec::TensorData::zeros(ir::DType::kI8, int8_input.shape);
    exec::TensorData x = exec::TensorData::zeros(ir::DType::kF32, float_input.shape);
    for (size_t i = 0; i < static_cast<size_t>(q.num_elements()); ++i) {
      const int32_t v = static_cast<int32_t>(std::round(image.values<float>()[i] / scale)) + zero_point;
      const auto clamped = static_cast<int8_t>(std::clamp(v, -128, 127));
      q.mutable_values<int8_t>()[i] = clamped;
      x.mutable_values<float>()[i] = scale * static_cast<float>(clamped - zero_point);
    }
    auto int8_out = exec::run_reference(*int8_graph, {q});
    ASSERT_TRUE(int8_out) << int8_out.error().format();
    auto float_out = exec::run_reference(*float_graph, {x});
    ASSERT_TRUE(float_out) << float_out.error().format();
    const int64_t int8_class = find_top_class((*int8_out)[0]);
    int8_classes.insert(int8_class);
    if (int8_class == find_top_class((*float_out)[0])) ++agreeing;
    // Output agreement in real values, beyond the top class.
    const exec::TensorData& qy = (*int8_out)[0];
    const exec::TensorData& fy = (*float_out)[0];
    const auto& out_quant = int8_graph->tensor(int8_graph->outputs[0]).quant;
    ASSERT_TRUE(out_quant.has_value());
    for (size_t i = 0; i < static_cast<size_t>(qy.num_elements()); ++i) {
      const float real = out_quant->scale[0] * static_cast<float>(qy.values<int8_t>()[i] - out_quant->zero_point[0]);
      max_output_difference = std::max(max_output_difference, std::fabs(real - fy.values<float>()[i]));
    }
  }
  std::printf("agreement %s: %d/%d (int8 model predicted %zu distinct classes; max |int8 - float| output %.4f)\n",
              pair.name, agreeing, kSamples, int8_classes.size(), static_cast<double>(max_output_difference));
  EXPECT_GE(agreeing, min_agreeing) << pair.name;
  // These random images are far from the training data and mostly land in one
  // class, so top-1 alone is weak evidence; the softmax outputs must agree too.
  EXPECT_LT(max_output_difference, pair.max_output_difference) << pair.name;
}

// Floor: more than half of the samples. Random inputs sit far from the
// training data, where int8 rounding flips close calls more often than on real
// data (MLPerf Tiny reports ~1% accuracy loss for these int8 models); a broken
// layout, scale or kernel drops agreement to chance (1/12 kws, 1/10 resnet8,
// 1/2 vww), so > 50% separates the two for the 10- and 12-class models.
constexpr int kFloor = kSamples / 2 + 1;

TEST(Int8FloatAgreement, KwsTopClassAgreesOnMostInputs) {
  check_agreement({"kws", "tflite/mlperf_tiny/kws_ref_model_float32.tflite",
                   "tflite/mlperf_tiny/kws_ref_model_int8.tflite"},
                  kFloor);
}

TEST(Int8FloatAgreement, Resnet8TopClassAgreesOnMostInputs) {
  check_agreement({"resnet8", "onnx/mlperf_tiny/resnet8_cifar10_float.onnx",
                   "tflite/mlperf_tiny/resnet8_int8.tflite", true, 0.35f},
                  kFloor);
}

TEST(Int8FloatAgreement, VwwTopClassAgreesOnMostInputs) {
  check_agreement({"vww", "onnx/mlperf_tiny/vww_96_float.onnx", "tflite/mlperf_tiny/vww_96_int8.tflite"}, kFloor);
}

}  // namespace
}  // namespace tinyfit
