// The reference interpreter against TensorFlow Lite Micro's own outputs
// (shared/models/golden/README.md): for every golden folder, importing the
// model and running input.npy must reproduce output.npy bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "exec/npy.h"
#include "exec/reference_interpreter.h"
#include "import/import_model.h"

namespace tinyfit {
namespace {

const std::string kGoldenDir = std::string(TINYFIT_MODELS_DIR) + "/golden";

// Folder "mlperf_tiny__kws_ref_model_int8.tflite" holds the golden data of
// tflite/mlperf_tiny/kws_ref_model_int8.tflite.
std::string model_path_of(const std::string& folder) {
  const auto split = folder.find("__");
  return std::string(TINYFIT_MODELS_DIR) + "/tflite/" + folder.substr(0, split) + "/" + folder.substr(split + 2);
}

// Describes the first differing element, or returns empty when bit-identical.
std::string describe_first_difference(const exec::TensorData& actual, const exec::TensorData& expected) {
  if (actual.dtype != expected.dtype) {
    return "dtype " + std::string(ir::dtype_name(actual.dtype)) + " vs " + std::string(ir::dtype_name(expected.dtype));
  }
  if (actual.num_elements() != expected.num_elements()) {
    return "shape " + ir::format_shape(actual.shape) + " vs " + ir::format_shape(expected.shape);
  }
  const auto element_bytes = static_cast<size_t>(ir::dtype_size_bytes(actual.dtype));
  int64_t differing = 0;
  std::string first;
  for (int64_t i = 0; i < actual.num_elements(); ++i) {
    const size_t at = static_cast<size_t>(i) * element_bytes;
    if (std::memcmp(actual.bytes.data() + at, expected.bytes.data() + at, element_bytes) == 0) continue;
    if (differing++ == 0) {
      first = "first difference at flat index " + std::to_string(i) + ": ";
      switch (actual.dtype) {
        case ir::DType::kI8:
          first += std::to_string(actual.values<int8_t>()[static_cast<size_t>(i)]) + " vs golden " +
                   std::to_string(expected.values<int8_t>()[static_cast<size_t>(i)]);
          break;
        case ir::DType::kU8:
          first += std::to_string(actual.values<uint8_t>()[static_cast<size_t>(i)]) + " vs golden " +
                   std::to_string(expected.values<uint8_t>()[static_cast<size_t>(i)]);
          break;
        case ir::DType::kF32:
          first += std::to_string(actual.values<float>()[static_cast<size_t>(i)]) + " vs golden " +
                   std::to_string(expected.values<float>()[static_cast<size_t>(i)]);
          break;
        default: first += "(bytes differ)";
      }
    }
  }
  if (differing == 0) return {};
  return first + " (" + std::to_string(differing) + " of " + std::to_string(actual.num_elements()) +
         " elements differ)";
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, ReferenceInterpreterReproducesTfliteMicroBitForBit) {
  const std::string folder = GetParam();
  const std::string dir = kGoldenDir + "/" + folder;
  import::ImportOptions options;
  options.keep_io_quantization = true;  // mcunetv2_se_large_224 has float I/O around an int8 body
  auto graph = import::import_model(model_path_of(folder), options);
  ASSERT_TRUE(graph) << graph.error().format();
  auto input = exec::read_npy(dir + "/input.npy");
  ASSERT_TRUE(input) << input.error().format();
  auto expected = exec::read_npy(dir + "/output.npy");
  ASSERT_TRUE(expected) << expected.error().format();
  // The golden input is in the model's own layout; for TFLite that is NHWC,
  // the IR's layout, so only the rank may differ (never the element order).
  if (graph->inputs.size() == 1) input->shape = graph->tensor(graph->inputs[0]).shape;
  auto outputs = exec::run_reference(*graph, {*input});
  ASSERT_TRUE(outputs) << outputs.error().format();
  ASSERT_EQ(outputs->size(), 1u);
  const std::string difference = describe_first_difference((*outputs)[0], *expected);
  EXPECT_TRUE(difference.empty()) << folder << ": " << difference;
}

std::vector<std::string> list_golden_folders() {
  std::vector<std::string> folders;
  for (const auto& entry : std::filesystem::directory_iterator(kGoldenDir)) {
    if (entry.is_directory()) folders.push_back(entry.path().filename().string());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

std::string name_test(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - std::string(".tflite").size());
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Models, GoldenTest, ::testing::ValuesIn(list_golden_folders()), name_test);

TEST(GoldenSet, HasElevenModels) {
  EXPECT_EQ(list_golden_folders().size(), 11u);  // golden/README.md: "For 11 of the TFLite models"
}

}  // namespace
}  // namespace tinyfit

namespace tinyfit {
namespace {

TEST(GoldenCompare, ReportsTheFirstDifferingElement) {
  exec::TensorData a = exec::TensorData::zeros(ir::DType::kI8, {1, 4});
  exec::TensorData b = a;
  b.mutable_values<int8_t>()[2] = -3;
  EXPECT_EQ(describe_first_difference(a, a), "");
  EXPECT_EQ(describe_first_difference(a, b),
            "first difference at flat index 2: 0 vs golden -3 (1 of 4 elements differ)");
}

}  // namespace
}  // namespace tinyfit
