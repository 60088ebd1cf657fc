// The real models whose plans need the data-movement and normalisation
// kernels beyond Softmax (which every classifier in plan_execution_conv_test
// already runs): Concat and LRN in the ONNX model-zoo topologies
// (SqueezeNet's fire modules concatenate two expand convolutions; Inception
// v1 concatenates four branches and normalises with LRN twice). They run
// through the plan executor against the reference interpreter on the golden
// input, operator at a time (placed by "best") and, when PEX finds loops, as
// PEX plans with 32-bit accumulators. Float outputs agree within
// summation-order error (1e-4 relative + 1e-5).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "exec/plan_executor.h"
#include "exec/reference_interpreter.h"
#include "import/import_model.h"
#include "plan/build_plan.h"
#include "plan/lower_pex.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"

namespace tinyfit {
namespace {

// Empty when every element agrees (integers exactly).
std::string compare(const exec::TensorData& actual, const exec::TensorData& expected) {
  if (actual.dtype != expected.dtype || actual.bytes.size() != expected.bytes.size()) return "dtype or size differs";
  if (actual.dtype != ir::DType::kF32) return actual.bytes == expected.bytes ? "" : "bytes differ";
  const auto a = actual.values<float>();
  const auto e = expected.values<float>();
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(std::abs(a[i] - e[i]) <= 1e-5 + 1e-4 * std::abs(e[i]))) {
      return "element " + std::to_string(i) + ": " + std::to_string(a[i]) + " vs " + std::to_string(e[i]);
    }
  }
  return {};
}

// Empty when the plan ran and matched, else what went wrong.
std::string run_and_compare(const ir::Graph& graph, plan::Plan plan, const std::vector<exec::TensorData>& inputs,
                            const std::vector<exec::TensorData>& expected) {
  if (Result<plan::Placement> placed = plan::place_plan(plan, "best", {}); !placed) return placed.error().format();
  if (Status valid = plan::verify_plan(graph, plan); !valid) return valid.error().format();
  Result<std::vector<exec::TensorData>> actual = exec::execute_plan(graph, plan, inputs);
  if (!actual) return actual.error().format();
  for (size_t o = 0; o < expected.size(); ++o) {
    const std::string difference = compare((*actual)[o], expected[o]);
    if (!difference.empty()) return "output " + std::to_string(o) + ": " + difference;
  }
  return {};
}

void expect_model_runs(const std::string& relative) {
  const std::string path = std::string(TINYFIT_MODELS_DIR) + "/" + relative;
  Result<ir::Graph> graph = import::import_model(path);
  ASSERT_TRUE(graph.has_value()) << graph.error().format();
  std::vector<exec::TensorData> inputs;
  for (ir::TensorId t : graph->inputs) {
    inputs.push_back(exec::make_golden_input(graph->tensor(t).dtype, graph->tensor(t).shape));
  }
  Result<std::vector<exec::TensorData>> expected = exec::run_reference(*graph, inputs);
  ASSERT_TRUE(expected.has_value()) << expected.error().format();

  const analysis::BufferGraph bg = analysis::build_buffer_graph(*graph);
  EXPECT_EQ(run_and_compare(*graph, plan::build_operator_plan(*graph, bg, analysis::given_order(bg)), inputs,
                            *expected),
            "")
      << relative << " operator at a time";
  Result<plan::PexResult> pex = plan::build_pex_plan(*graph, {});
  ASSERT_TRUE(pex.has_value()) << pex.error().format();
  std::printf("%s: pex-32 plan with %d loops\n", relative.c_str(), pex->loops);
  if (pex->loops > 0) {
    EXPECT_EQ(run_and_compare(*graph, pex->plan, inputs, *expected), "") << relative << " pex-32";
  }
}

TEST(PlanExecutionMove, SqueezeNetConcatenatesItsFireModulesLikeTheReference) {
  expect_model_runs("onnx/onnx_light/light_squeezenet.onnx");
}

TEST(PlanExecutionMove, InceptionV1ConcatenatesAndNormalisesLikeTheReference) {
  expect_model_runs("onnx/onnx_light/light_inception_v1.onnx");
}

}  // namespace
}  // namespace tinyfit
