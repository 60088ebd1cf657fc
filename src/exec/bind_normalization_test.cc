// The normalisation bindings (exec/bind_normalization.cc) and their runtime
// kernels against the reference interpreter: one-node graphs from the kernel
// oracle's generators (tests/property: ranks 1-4, extents 1-7, every softmax
// axis, input scales 0.01-0.3 so that TFLite's diff_min cuts some rows, betas
// 0.3-2) run through plans on the plan executor. int8 / uint8 Softmax must be
// bit-exact; float32 Softmax and LRN (expf / powf in float against the
// reference's double) within 1e-5 relative.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "support/kernel_oracle_cases.h"
#include "support/plan_runs.h"
#include "support/recording_emitter.h"
#include "exec/reference/softmax_exp.h"
#include "exec/reference_interpreter.h"

namespace tinyfit::exec {
namespace {

using kernel_oracle::OracleCase;
using kernel_oracle::Random;
using testing::ChunkViews;

constexpr uint64_t kCases = 100;
// expf / powf in float against exp / pow in double: a few float ulps (1.2e-7
// each) per element, and the float sum of at most 7 exps.
constexpr double kFloatRelative = 1e-5;

double tolerance_of(ir::DType dtype) { return dtype == ir::DType::kF32 ? kFloatRelative : 0; }

// TFLite's softmax output: scale 1/256 from the dtype's minimum (none for f32).
std::optional<ir::QuantParams> softmax_output_quant(ir::DType dtype) {
  if (!kernel_oracle::is_quantized(dtype)) return std::nullopt;
  return kernel_oracle::quant_of(dtype, 1.0f / 256, ir::dtype_min(dtype));
}

std::string describe(uint64_t seed, const OracleCase& c) {
  return "seed " + std::to_string(seed) + ": " + kernel_oracle::describe_case(c);
}

void expect_operator_plan_matches_reference(uint64_t seed, const OracleCase& c, double relative) {
  const auto expected = run_reference(c.graph, c.inputs);
  ASSERT_TRUE(expected) << expected.error().format();
  const auto actual = testing::run_operator_plan(c.graph, c.inputs);
  ASSERT_TRUE(actual) << describe(seed, c) << ": " << actual.error().format();
  testing::expect_same_outputs(*actual, *expected, relative, describe(seed, c));
}

TEST(Softmax, EveryAxisRankAndScaleMatchesTheReferenceInEveryDtype) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8, ir::DType::kF32}) {
    for (uint64_t seed = 0; seed < kCases; ++seed) {
      Random r(seed * 7919 + static_cast<uint64_t>(dtype));
      expect_operator_plan_matches_reference(seed, kernel_oracle::make_unary_case(r, dtype, ir::OpType::kSoftmax),
                                             tolerance_of(dtype));
    }
  }
}

// An ImageNet classifier's softmax: one row of 1000 logits over the whole
// int8 / uint8 range, scales 0.05-0.2 (as classifier logits have).
TEST(Softmax, ARowOfAThousandClassesMatchesTheReference) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    for (uint64_t seed = 0; seed < 10; ++seed) {
      Random r(seed + 100);
      OracleCase c;
      const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, {1, 1000}),
                                              kernel_oracle::random_quant(r, dtype, 0.05, 0.2));
      const auto y = kernel_oracle::add_output(c, "y", dtype, {1, 1000},
                                               softmax_output_quant(dtype));
      kernel_oracle::set_node(c, ir::OpType::kSoftmax, {x}, {y}, ir::SoftmaxAttrs{1, 1.0f});
      expect_operator_plan_matches_reference(seed, c, 0);
    }
  }
}

// A row of d equal values sums to d * 2^19 in Q12.19, so depths 1..511 walk
// the fixed-point reciprocal through every sum magnitude whose output shift
// (num_bits_over_unit + 23) stays within RoundingDivideByPOT's 31: from 512
// equal values on it would be 32, which the reference refuses.
TEST(Softmax, RowsOfEqualValuesOfEveryDepthUpTo511MatchTheReference) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    for (int64_t depth = 1; depth <= 511; ++depth) {
      OracleCase c;
      exec::TensorData value = exec::TensorData::zeros(dtype, {1, depth});
      std::fill(value.bytes.begin(), value.bytes.end(), uint8_t{100});
      const auto x = kernel_oracle::add_input(c, "x", value, kernel_oracle::quant_of(dtype, 0.1f, 0));
      const auto y = kernel_oracle::add_output(c, "y", dtype, {1, depth}, softmax_output_quant(dtype));
      kernel_oracle::set_node(c, ir::OpType::kSoftmax, {x}, {y}, ir::SoftmaxAttrs{1, 1.0f});
      expect_operator_plan_matches_reference(static_cast<uint64_t>(depth), c, 0);
    }
  }
}

// Softmax over rows (axis 1) or columns (axis 2) is channel-wise, so a plan
// may run it by chunks of channels; views are channel slices of the whole
// tensors (row strides of 7 channels) or partial buffers.
TEST(Softmax, ChannelChunksOfANonChannelAxisMatchTheReference) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8, ir::DType::kF32}) {
    for (int axis : {1, 2}) {
      for (int64_t tile : {1, 3, 7}) {  // of 7 channels: single channels, 3+3+1, all at once
        for (ChunkViews views : {ChunkViews::kSlicesOfWholeTensors, ChunkViews::kThroughPartialBuffers}) {
          Random r(static_cast<uint64_t>(tile * 10 + axis));
          OracleCase c;
          const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, {2, 5, 3, 7}, -4, 4),
                                                  kernel_oracle::random_quant(r, dtype, 0.01, 0.3));
          const auto y = kernel_oracle::add_output(c, "y", dtype, {2, 5, 3, 7},
                                                   softmax_output_quant(dtype));
          kernel_oracle::set_node(c, ir::OpType::kSoftmax, {x}, {y}, ir::SoftmaxAttrs{axis, 1.0f});
          const std::string context = std::string(ir::dtype_name(dtype)) + " axis " + std::to_string(axis) +
                                      " tile " + std::to_string(tile) +
                                      (views == ChunkViews::kSlicesOfWholeTensors ? " slices" : " partial buffers");
          const auto expected = run_reference(c.graph, c.inputs);
          ASSERT_TRUE(expected) << expected.error().format();
          const auto actual =
              testing::place_and_execute(c.graph, testing::make_channel_chunk_plan(c.graph, tile, views), c.inputs);
          ASSERT_TRUE(actual) << context << ": " << actual.error().format();
          testing::expect_same_outputs(*actual, *expected, tolerance_of(dtype), context);
        }
      }
    }
  }
}

// Softmax is declared in place (InplaceRule::kElementwise): the output view
// may be the input's own buffer.
TEST(Softmax, InPlaceOverItsInputMatchesTheReference) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8, ir::DType::kF32}) {
    Random r(7);
    OracleCase c;
    const ir::Shape shape{3, 10};
    const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, shape),
                                            kernel_oracle::random_quant(r, dtype, 0.01, 0.3));
    const auto y = kernel_oracle::add_output(c, "y", dtype, shape,
                                             softmax_output_quant(dtype));
    kernel_oracle::set_node(c, ir::OpType::kSoftmax, {x}, {y}, ir::SoftmaxAttrs{1, 1.0f});
    plan::Plan plan;
    plan.buffers = {{"x=y", plan::BufferRole::kModelOutput, dtype, 30 * ir::dtype_size_bytes(dtype), 4, -1}};
    plan.inputs = plan.outputs = {0};
    plan::KernelCall call;
    call.node = 0;
    call.inputs = call.outputs = {plan::make_dense_view(0, shape)};
    plan.steps.push_back(plan::Step{call});
    const auto expected = run_reference(c.graph, c.inputs);
    ASSERT_TRUE(expected) << expected.error().format();
    const auto actual = testing::place_and_execute(c.graph, plan, c.inputs);
    ASSERT_TRUE(actual) << actual.error().format();
    testing::expect_same_outputs(*actual, *expected, tolerance_of(dtype), std::string(ir::dtype_name(dtype)));
  }
}

// Every other case gets a fused clamp (the reference applies it to LRN).
TEST(F32Lrn, WindowSizesAndFusedClampsMatchTheReference) {
  for (uint64_t seed = 0; seed < kCases; ++seed) {
    Random r(seed);
    OracleCase c = kernel_oracle::make_lrn_case(r);
    if (seed % 2 == 1) c.graph.nodes[0].activation = {-0.5f, 0.75f};
    expect_operator_plan_matches_reference(seed, c, kFloatRelative);
  }
}

// --- emit -------------------------------------------------------------------

plan::Plan make_operator_plan(const ir::Graph& graph) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  return plan::build_operator_plan(graph, bg, analysis::given_order(bg));
}

// The table generated code keeps in flash is the reference's exp for each
// difference (0 below diff_min), and the axis is the view axis (rank 2 ->
// axis 1 is view axis 3).
TEST(NormalizationEmit, QuantizedSoftmaxEmitsTheReferenceExpTable) {
  OracleCase c;
  Random r(8);
  const float scale = 0.25f;
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, ir::DType::kI8, {1, 10}),
                                          kernel_oracle::quant_of(ir::DType::kI8, scale, 0));
  const auto y = kernel_oracle::add_output(c, "y", ir::DType::kI8, {1, 10},
                                           kernel_oracle::quant_of(ir::DType::kI8, 1.0f / 256, -128));
  kernel_oracle::set_node(c, ir::OpType::kSoftmax, {x}, {y}, ir::SoftmaxAttrs{1, 1.0f});
  const plan::Plan plan = make_operator_plan(c.graph);
  const auto kernel = prepare_kernel({c.graph, plan, plan.steps.at(0).call()});
  ASSERT_TRUE(kernel) << kernel.error().format();
  testing::RecordingEmitter emitter;
  ASSERT_TRUE((*kernel)->emit(emitter));
  ASSERT_EQ(emitter.calls.size(), 1u);
  EXPECT_EQ(emitter.calls[0].function, "tf_qs8_softmax_lut");
  const auto& fields = emitter.fields_of(emitter.calls[0].arguments[2]);
  EXPECT_EQ(fields[0].second, "3");
  const std::vector<uint8_t>& bytes = emitter.arrays.at(fields[1].second).bytes;
  ASSERT_EQ(bytes.size(), 256 * sizeof(int32_t));
  const reference::SoftmaxExpParams p = reference::prepare_softmax_exp(1.0, scale);
  int zeros = 0;
  for (int k = 0; k < 256; ++k) {
    int32_t entry;
    std::memcpy(&entry, bytes.data() + 4 * k, sizeof entry);
    EXPECT_EQ(entry, -k >= p.diff_min ? reference::compute_softmax_exp(p, -k) : 0) << "difference " << -k;
    zeros += entry == 0;
  }
  // beta * scale * 2^26 = 2^24 = 2^30 * 2^(25 - 31): left shift 25, so
  // diff_min = -floor(31 * 2^26 / 2^25) = -62 and the differences -63 .. -255
  // (193 of them) are cut.
  EXPECT_EQ(p.diff_min, -62);
  EXPECT_EQ(zeros, 193);
}

// Unbounded clamp sides become +-FLT_MAX (3.40282347e+38): generated code has
// no infinity literal.
TEST(NormalizationEmit, LrnEmitsItsAttributesAndFiniteClampBounds) {
  OracleCase c;
  Random r(9);
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, ir::DType::kF32, {1, 2, 2, 5}));
  const auto y = kernel_oracle::add_output(c, "y", ir::DType::kF32, {1, 2, 2, 5});
  kernel_oracle::set_node(c, ir::OpType::kLrn, {x}, {y}, ir::LrnAttrs{3, 0.5f, 0.75f, 2.0f});
  const plan::Plan plan = make_operator_plan(c.graph);
  const auto kernel = prepare_kernel({c.graph, plan, plan.steps.at(0).call()});
  ASSERT_TRUE(kernel) << kernel.error().format();
  testing::RecordingEmitter emitter;
  ASSERT_TRUE((*kernel)->emit(emitter));
  ASSERT_EQ(emitter.calls.size(), 1u);
  EXPECT_EQ(emitter.calls[0].function, "tf_f32_lrn_direct");
  EXPECT_EQ(emitter.fields_of(emitter.calls[0].arguments[2]),
            (std::vector<std::pair<std::string, std::string>>{{"size", "3"},
                                                              {"alpha", "0.5f"},
                                                              {"beta", "0.75f"},
                                                              {"bias", "2.0f"},
                                                              {"output_min", "-3.40282347e+38f"},
                                                              {"output_max", "3.40282347e+38f"}}));
}

// --- what is not built ---------------------------------------------------------

TEST(NormalizationBinding, ASoftmaxFromInt8ToUint8IsNotBuiltYet) {
  OracleCase c;
  Random r(10);
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, ir::DType::kI8, {1, 4}),
                                          kernel_oracle::quant_of(ir::DType::kI8, 0.1f, 0));
  const auto y = kernel_oracle::add_output(c, "y", ir::DType::kU8, {1, 4},
                                           kernel_oracle::quant_of(ir::DType::kU8, 1.0f / 256, 0));
  kernel_oracle::set_node(c, ir::OpType::kSoftmax, {x}, {y}, ir::SoftmaxAttrs{1, 1.0f});
  const auto actual = testing::run_operator_plan(c.graph, c.inputs);
  ASSERT_FALSE(actual);
  EXPECT_EQ(actual.error().code, ExitCode::kBadCommandLine);
  EXPECT_NE(actual.error().message.find("i8 to u8"), std::string::npos) << actual.error().format();
}

// 4096 exps of 1.0 in Q12.19 are 2^31: the int32 sum would overflow.
TEST(NormalizationBinding, AQuantizedSoftmaxRowOf4096IsNotBuilt) {
  OracleCase c;
  Random r(11);
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, ir::DType::kI8, {1, 4096}),
                                          kernel_oracle::quant_of(ir::DType::kI8, 0.1f, 0));
  const auto y = kernel_oracle::add_output(c, "y", ir::DType::kI8, {1, 4096}, softmax_output_quant(ir::DType::kI8));
  kernel_oracle::set_node(c, ir::OpType::kSoftmax, {x}, {y}, ir::SoftmaxAttrs{1, 1.0f});
  const auto actual = testing::run_operator_plan(c.graph, c.inputs);
  ASSERT_FALSE(actual);
  EXPECT_EQ(actual.error().code, ExitCode::kBadCommandLine);
  EXPECT_NE(actual.error().message.find("longer than 4095"), std::string::npos) << actual.error().format();
}

}  // namespace
}  // namespace tinyfit::exec
