// The Resize binding (exec/bind_resize.cc) and its runtime kernels
// (tf_x8_resize_nearest, tf_{f32,qs8,qu8}_resize_bilinear) against the
// reference interpreter, on the kernel oracle's random cases (ONNX and TFLite
// arithmetic, every coordinate transformation and rounding, up- and
// downsampling, extents from 1): the operator plan, channel loops whose
// views are slices of whole tensors or partial buffers, and direct chunk
// calls inside larger poisoned tensors (tests/support/channelwise_binding_check.h),
// all bit-exact (the float kernel repeats the reference's expression).
// Plus the emitted call: its tables are the taps run() uses.
#include <gtest/gtest.h>

#include <cstring>

#include "support/channelwise_binding_check.h"
#include "support/emitted_call_check.h"
#include "support/recording_emitter.h"
#include "ir/resize_sampling.h"

namespace tinyfit::exec {
namespace {

using kernel_oracle::OracleCase;
using kernel_oracle::Random;

// Per dtype: 2 modes x 2 arithmetics x up to 5 coordinate choices; 40 seeds
// cover each combination about twice.
constexpr uint64_t kCasesPerDtype = 40;

TEST(ResizeBinding, EveryModeArithmeticAndChunkingMatchesTheReference) {
  for (ir::DType dtype : {ir::DType::kF32, ir::DType::kI8, ir::DType::kU8}) {
    for (uint64_t seed = 0; seed < kCasesPerDtype; ++seed) {
      Random r(seed * 7919 + static_cast<uint64_t>(dtype));
      channelwise_test::expect_all_ways_match_reference(kernel_oracle::make_resize_case(r, dtype),
                                                        "seed " + std::to_string(seed));
    }
  }
}

TEST(ResizeBinding, ABilinearResizeThatRequantizesIsNotBuilt) {
  OracleCase c;
  for (uint64_t seed = 0; c.graph.nodes.empty() ||
                          c.graph.nodes[0].attr<ir::ResizeAttrs>().mode != ir::ResizeMode::kBilinear;
       ++seed) {
    Random r(seed);
    c = kernel_oracle::make_resize_case(r, ir::DType::kI8);
  }
  c.graph.tensor(c.graph.outputs[0]).quant->scale[0] *= 2;
  const auto plan = channelwise_test::run_operator_plan(c.graph, c.inputs);
  ASSERT_FALSE(plan.has_value());
  EXPECT_NE(plan.error().format().find("a bilinear Resize that requantizes"), std::string::npos)
      << plan.error().format();
}

// The emitted call names the kernel run() calls and defines, in flash, the
// index tables of ir/resize_sampling.h for this node.
TEST(ResizeEmit, TheTablesInFlashAreTheTapsRunUses) {
  for (ir::DType dtype : {ir::DType::kF32, ir::DType::kI8}) {
    for (uint64_t seed = 0; seed < 8; ++seed) {
      Random r(seed + 100 * static_cast<uint64_t>(dtype));
      const OracleCase c = kernel_oracle::make_resize_case(r, dtype);
      SCOPED_TRACE(kernel_oracle::describe_case(c));
      const analysis::BufferGraph bg = analysis::build_buffer_graph(c.graph);
      const plan::Plan plan = plan::build_operator_plan(c.graph, bg, analysis::given_order(bg));
      auto kernel = prepare_kernel(KernelCallContext{c.graph, plan, plan.steps.at(0).call()});
      ASSERT_TRUE(kernel.has_value()) << kernel.error().format();
      testing::RecordingEmitter emitter;
      ASSERT_TRUE((*kernel)->emit(emitter).has_value());
      ASSERT_EQ(emitter.calls.size(), 1u);
      EXPECT_EQ(emitter.calls[0].function, (*kernel)->kernel_name());
      EXPECT_EQ(emitter.calls[0].header, "tinyfit/resize.h");
      const ir::Node& node = c.graph.nodes[0];
      const ir::Tensor& x = c.graph.input_tensor(node, 0);
      const ir::Tensor& y = c.graph.output_tensor(node, 0);
      const auto rows = ir::compute_resize_taps(node.attr<ir::ResizeAttrs>(), ir::ResizeAxis::kRows, x.shape[1],
                                                y.shape[1], dtype != ir::DType::kF32);
      // The first array defined is the row table: indices (nearest) or lower/upper pairs.
      std::vector<int32_t> expected;
      const bool nearest = node.attr<ir::ResizeAttrs>().mode == ir::ResizeMode::kNearest;
      for (const ir::ResizeTap& tap : rows) {
        expected.push_back(tap.lower);
        if (!nearest) expected.push_back(tap.upper);
      }
      const auto& first = emitter.arrays.begin()->second;  // "array0_..."
      ASSERT_EQ(first.bytes.size(), expected.size() * sizeof(int32_t));
      EXPECT_EQ(std::memcmp(first.bytes.data(), expected.data(), first.bytes.size()), 0);
    }
  }
}

}  // namespace
}  // namespace tinyfit::exec
