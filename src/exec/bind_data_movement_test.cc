// The data-movement bindings (exec/bind_data_movement.cc) and their x8
// runtime kernels against the reference interpreter: one-node graphs from the
// kernel oracle's generators (tests/support: ranks 1-4, extents 1-8 with
// extent-1 axes, every axis, quantization parameters like real models have)
// run through ordinary plans on the plan executor, int8 / uint8 / float32,
// compared byte for byte (moving bytes is exact in every dtype; so is the
// rescaling Concat, which repeats the reference's float arithmetic). Channel
// chunks of Pad and plan copies run in loops whose views are slices of whole
// tensors or partial buffers, with tiles that leave a short last chunk.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "support/kernel_oracle_reduce_move_cases.h"
#include "support/plan_runs.h"
#include "support/recording_emitter.h"
#include "exec/reference_interpreter.h"
#include "tinyfit/data_movement.h"

namespace tinyfit::exec {
namespace {

using kernel_oracle::OracleCase;
using kernel_oracle::Random;
using testing::ChunkViews;

// Seeds per dtype: with 4 ranks, up to 8 extents per axis and (Concat) up
// to 4 inputs, 60 random cases cover every rank and axis several times.
constexpr uint64_t kCasesPerDtype = 60;
const ir::DType kDtypes[] = {ir::DType::kI8, ir::DType::kU8, ir::DType::kF32};

std::string describe(uint64_t seed, const OracleCase& c) {
  return "seed " + std::to_string(seed) + ": " + kernel_oracle::describe_case(c);
}

Random make_random(uint64_t seed, ir::DType dtype) { return Random(seed * 7919 + static_cast<uint64_t>(dtype)); }

// Every generated case: the operator plan's outputs equal the reference's (a
// case the bindings do not build is a failure).
void expect_plans_match_reference(const std::function<OracleCase(Random&, ir::DType)>& make_case) {
  for (ir::DType dtype : kDtypes) {
    for (uint64_t seed = 0; seed < kCasesPerDtype; ++seed) {
      Random r = make_random(seed, dtype);
      const OracleCase c = make_case(r, dtype);
      const auto expected = run_reference(c.graph, c.inputs);
      ASSERT_TRUE(expected) << expected.error().format();
      const auto actual = testing::run_operator_plan(c.graph, c.inputs);
      ASSERT_TRUE(actual) << describe(seed, c) << ": " << actual.error().format();
      testing::expect_same_outputs(*actual, *expected, 0, describe(seed, c));
    }
  }
}

TEST(X8Concat, EveryAxisAndInputCountMatchesTheReferenceIncludingRescaledInputs) {
  expect_plans_match_reference(kernel_oracle::make_concat_case);
}

// A Relu or Relu6 fused into a Concat (an ONNX Relu after it): the plan's
// concatenation plus its in-place clamp equals the reference, and the
// reference really clamps (no negative real value survives).
OracleCase make_concat_relu_case(Random& r, ir::DType dtype) {
  OracleCase c = kernel_oracle::make_concat_case(r, dtype);
  c.graph.nodes.at(0).activation =
      ir::FusedActivation{0.0f, r.chance(0.5) ? 6.0f : std::numeric_limits<float>::infinity()};
  return c;
}

TEST(X8Concat, AFusedReluClampsTheConcatenatedOutputLikeTheReference) {
  expect_plans_match_reference(make_concat_relu_case);
  for (uint64_t seed = 0; seed < kCasesPerDtype; ++seed) {
    Random r = make_random(seed, ir::DType::kF32);
    const OracleCase c = make_concat_relu_case(r, ir::DType::kF32);
    const auto expected = run_reference(c.graph, c.inputs);
    ASSERT_TRUE(expected) << expected.error().format();
    for (float v : expected->at(0).values<float>()) ASSERT_GE(v, 0.0f) << describe(seed, c);
  }
}

TEST(X8ChannelShuffle, EveryGroupCountAndRankMatchesTheReference) {
  expect_plans_match_reference(kernel_oracle::make_channel_shuffle_case);
}

TEST(X8Split, EveryAxisAndSplitMatchesTheReference) { expect_plans_match_reference(kernel_oracle::make_split_case); }

TEST(X8Slice, BeginsAndStepsOnEveryAxisMatchTheReference) {
  expect_plans_match_reference(kernel_oracle::make_slice_case);
}

TEST(X8Pad, PaddingOnEveryAxisWithTheQuantizedPadValueMatchesTheReference) {
  expect_plans_match_reference(kernel_oracle::make_pad_case);
}

// The generator draws ranks 1-5; tf_view has four axes, so rank 5 is not
// built: it must say so (exit 2), never crash.
TEST(X8Transpose, EveryPermutationUpToRankFourMatchesTheReferenceAndRankFiveIsNotBuilt) {
  int rank_five = 0;
  for (ir::DType dtype : kDtypes) {
    for (uint64_t seed = 0; seed < kCasesPerDtype; ++seed) {
      Random r = make_random(seed, dtype);
      const OracleCase c = kernel_oracle::make_transpose_case(r, dtype);
      const auto expected = run_reference(c.graph, c.inputs);
      ASSERT_TRUE(expected) << expected.error().format();
      const auto actual = testing::run_operator_plan(c.graph, c.inputs);
      if (c.graph.tensor(c.graph.inputs[0]).shape.size() == 5) {
        ++rank_five;
        ASSERT_FALSE(actual) << describe(seed, c);
        EXPECT_EQ(actual.error().code, ExitCode::kBadCommandLine);
        EXPECT_NE(actual.error().message.find("rank 5"), std::string::npos) << actual.error().format();
        continue;
      }
      ASSERT_TRUE(actual) << describe(seed, c) << ": " << actual.error().format();
      testing::expect_same_outputs(*actual, *expected, 0, describe(seed, c));
    }
  }
  EXPECT_GT(rank_five, 0) << "the generator's rank-5 cases were meant to be checked too";
}

// A Pad that leaves the channels alone is channel-wise (ir/ops: kind_pad), so
// a plan may run it by chunks of channels.
TEST(X8Pad, ChannelChunksOfSlicesOrPartialBuffersMatchTheReference) {
  for (ir::DType dtype : kDtypes) {
    for (int64_t tile : {1, 2, 3, 7}) {  // of 7 channels: 7 chunks, a short last chunk (7 = 2+2+2+1, 3+3+1), one
      for (ChunkViews views : {ChunkViews::kSlicesOfWholeTensors, ChunkViews::kThroughPartialBuffers}) {
        OracleCase c;
        Random r = make_random(static_cast<uint64_t>(tile), dtype);
        const auto q = kernel_oracle::random_quant(r, dtype);
        const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, {2, 3, 4, 7}), q);
        const auto y = kernel_oracle::add_output(c, "y", dtype, {2, 5, 5, 7}, q);
        ir::PadAttrs a{{0, 1, 0, 0}, {0, 1, 1, 0}, 0.0f};
        kernel_oracle::set_node(c, ir::OpType::kPad, {x}, {y}, a);
        const std::string context = std::string(ir::dtype_name(dtype)) + " tile " + std::to_string(tile) +
                                    (views == ChunkViews::kSlicesOfWholeTensors ? " slices" : " partial buffers");
        const auto expected = run_reference(c.graph, c.inputs);
        ASSERT_TRUE(expected) << expected.error().format();
        const auto actual =
            testing::place_and_execute(c.graph, testing::make_channel_chunk_plan(c.graph, tile, views), c.inputs);
        ASSERT_TRUE(actual) << context << ": " << actual.error().format();
        testing::expect_same_outputs(*actual, *expected, 0, context);
      }
    }
  }
}

// PEX Slice / Post-concatenate: a loop copies channel chunks of a whole tensor
// into a partial buffer and back out into another whole tensor, for element
// sizes 1, 2 and 4; the output must be the input.
TEST(X8Copy, ChunkCopiesThroughAPartialBufferReproduceTheInputForEveryElementSize) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kI16, ir::DType::kF32}) {
    for (int64_t tile : {1, 3, 7}) {
      const ir::Shape shape{2, 3, 5, 7};
      TensorData value = TensorData::zeros(dtype, shape);
      std::iota(value.bytes.begin(), value.bytes.end(), uint8_t{1});
      OracleCase c;
      kernel_oracle::add_input(c, "x", value);
      kernel_oracle::add_output(c, "y", dtype, shape);
      const int64_t eb = ir::dtype_size_bytes(dtype);
      plan::Plan plan;
      plan.buffers = {{"x", plan::BufferRole::kModelInput, dtype, 210 * eb, 4, -1},   // 2*3*5*7 elements
                      {"y", plan::BufferRole::kModelOutput, dtype, 210 * eb, 4, -1},
                      {"chunk", plan::BufferRole::kPartial, dtype, 30 * tile * eb, 4, -1}};  // 2*3*5 pixels
      plan.inputs = {0};
      plan.outputs = {1};
      const auto whole_chunk = [&](plan::BufferId b) {
        return plan::follow_chunk(plan::make_dense_view(b, shape), 0, 3, 7, false);
      };
      const plan::View partial = plan::follow_chunk(plan::make_dense_view(2, {2, 3, 5, tile}), 0, 3, 7, true);
      plan::Loop loop{"copies", plan::LoopAxis::kChannels, 7, tile, {}};
      plan::KernelCall in, out;
      in.mode = out.mode = plan::CallMode::kCopy;
      in.inputs = {whole_chunk(0)};
      in.outputs = {partial};
      out.inputs = {partial};
      out.outputs = {whole_chunk(1)};
      loop.body = {plan::Step{in}, plan::Step{out}};
      plan.steps.push_back(plan::Step{loop});
      const auto actual = testing::place_and_execute(c.graph, plan, c.inputs);
      ASSERT_TRUE(actual) << actual.error().format();
      EXPECT_EQ(actual->at(0).bytes, value.bytes) << ir::dtype_name(dtype) << " tile " << tile;
    }
  }
}

// tf_x8_copy promises any strides: a view whose channels are not adjacent
// (the columns of a 3x2 matrix) is copied element by element.
TEST(X8Copy, ViewsWithAChannelStrideOtherThanOneAreCopiedElementByElement) {
  const int16_t matrix[6] = {10, 11, 20, 21, 30, 31};  // 3 rows x 2 columns
  int16_t transposed[6] = {};
  const tf_view input{const_cast<int16_t*>(matrix), {1, 1, 2, 3}, {0, 0, 1, 2}, {}};  // column w, row c
  const tf_view output{transposed, {1, 1, 2, 3}, {0, 0, 3, 1}, {}};
  tf_x8_copy(&input, &output, 2);
  const int16_t expected[6] = {10, 20, 30, 11, 21, 31};
  EXPECT_EQ(std::vector<int16_t>(transposed, transposed + 6), std::vector<int16_t>(expected, expected + 6));
}

// BlockConcat (plan/lower_row_loop.h): the rows a carried buffer keeps move
// to its front, onto rows they overlap. Rows 2..4 of a 5-row buffer of 2 x 2
// bytes move to rows 0..2: as one dense block, and with the channels of
// every pixel a stride of 2 apart (strided, front to back).
TEST(X8Copy, KeptRowsMoveToTheFrontOfTheirBufferOverRowsTheyOverlap) {
  for (const bool dense : {true, false}) {
    uint8_t rows[40] = {};
    for (int i = 0; i < 40; ++i) rows[i] = static_cast<uint8_t>(i);
    const int32_t pixel = dense ? 2 : 4;  // bytes between pixels; strided: every other byte is a channel
    const int32_t channel = dense ? 1 : 2;
    const int32_t row = 2 * pixel;
    const tf_view kept{rows + 2 * row, {1, 3, 2, 2}, {0, row, pixel, channel}, {}};
    const tf_view front{rows, {1, 3, 2, 2}, {0, row, pixel, channel}, {}};
    tf_x8_copy(&kept, &front, 1);
    for (int r = 0; r < 3; ++r) {
      for (int w = 0; w < 2; ++w) {
        for (int c = 0; c < 2; ++c) {
          const int at = r * row + w * pixel + c * channel;
          EXPECT_EQ(rows[at], at + 2 * row) << (dense ? "dense" : "strided") << " row " << r << " w " << w << " c " << c;
        }
      }
    }
  }
}

// --- emit -------------------------------------------------------------------

plan::Plan make_operator_plan(const ir::Graph& graph) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  return plan::build_operator_plan(graph, bg, analysis::given_order(bg));
}

// Concat of three int8 inputs, the middle one on other parameters: two copies
// and one rescale, each placing its input at its offset along the channels.
TEST(DataMovementEmit, ConcatEmitsOneCallPerInputWithTheOffsetsAndScalesRunUses) {
  OracleCase c;
  Random r(1);
  const auto q = kernel_oracle::quant_of(ir::DType::kI8, 0.5f, 3);
  const auto other = kernel_oracle::quant_of(ir::DType::kI8, 0.25f, -2);
  const auto a = kernel_oracle::add_input(c, "a", kernel_oracle::random_tensor(r, ir::DType::kI8, {1, 2, 2, 3}), q);
  const auto b = kernel_oracle::add_input(c, "b", kernel_oracle::random_tensor(r, ir::DType::kI8, {1, 2, 2, 1}), other);
  const auto d = kernel_oracle::add_input(c, "d", kernel_oracle::random_tensor(r, ir::DType::kI8, {1, 2, 2, 2}), q);
  const auto y = kernel_oracle::add_output(c, "y", ir::DType::kI8, {1, 2, 2, 6}, q);
  kernel_oracle::set_node(c, ir::OpType::kConcat, {a, b, d}, {y}, ir::ConcatAttrs{3});
  const plan::Plan plan = make_operator_plan(c.graph);
  const auto kernel = prepare_kernel({c.graph, plan, plan.steps.at(0).call()});
  ASSERT_TRUE(kernel) << kernel.error().format();
  testing::RecordingEmitter emitter;
  ASSERT_TRUE((*kernel)->emit(emitter));
  ASSERT_EQ(emitter.calls.size(), 3u);
  // Copies first (inputs 0 and 2 at channel offsets 0 and 4), then the rescale
  // of input 1 at offset 3: scale 0.25 * (1 / 0.5) = 0.5, bias 2 * 0.5 = 1.
  EXPECT_EQ(emitter.calls[0].function, "tf_x8_concat_copy");
  EXPECT_EQ(emitter.calls[0].arguments[0], "&in0");
  EXPECT_EQ(emitter.fields_of(emitter.calls[0].arguments[2])[1].second, "0");
  EXPECT_EQ(emitter.calls[1].arguments[0], "&in2");
  EXPECT_EQ(emitter.fields_of(emitter.calls[1].arguments[2])[1].second, "4");
  EXPECT_EQ(emitter.calls[2].function, "tf_qs8_concat_rescale");
  EXPECT_EQ(emitter.calls[2].arguments[0], "&in1");
  const auto& rescale = emitter.fields_of(emitter.calls[2].arguments[2]);
  EXPECT_EQ(rescale[1].second, "3");
  EXPECT_EQ(rescale[2].second, "0.5f");
  EXPECT_EQ(rescale[3].second, "1.0f");
  EXPECT_EQ(rescale[4].second, "3");
}

// Split of a rank-2 tensor along its last axis into 1 + 3 features: one
// slice per output, beginning at 0 and 1 on view axis 3.
TEST(DataMovementEmit, SplitEmitsOneSlicePerOutputFromItsOffset) {
  OracleCase c;
  Random r(2);
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, ir::DType::kF32, {2, 4}));
  const auto y0 = kernel_oracle::add_output(c, "y0", ir::DType::kF32, {2, 1});
  const auto y1 = kernel_oracle::add_output(c, "y1", ir::DType::kF32, {2, 3});
  kernel_oracle::set_node(c, ir::OpType::kSplit, {x}, {y0, y1}, ir::SplitAttrs{1, {1, 3}});
  const plan::Plan plan = make_operator_plan(c.graph);
  const auto kernel = prepare_kernel({c.graph, plan, plan.steps.at(0).call()});
  ASSERT_TRUE(kernel) << kernel.error().format();
  testing::RecordingEmitter emitter;
  ASSERT_TRUE((*kernel)->emit(emitter));
  ASSERT_EQ(emitter.calls.size(), 2u);
  EXPECT_EQ(emitter.calls[0].function, "tf_x8_slice");
  EXPECT_EQ(emitter.calls[1].arguments[1], "&out1");
  EXPECT_EQ(emitter.fields_of(emitter.calls[0].arguments[2])[0].second, "{0, 0, 0, 0}");
  EXPECT_EQ(emitter.fields_of(emitter.calls[1].arguments[2])[0].second, "{0, 0, 0, 1}");
  EXPECT_EQ(emitter.fields_of(emitter.calls[1].arguments[2])[2].second, "4");
}

// A uint8 Pad of 0.0 fills with the zero point (0x7b = 123).
TEST(DataMovementEmit, QuantizedPadEmitsTheZeroPointAsItsFill) {
  OracleCase c;
  Random r(3);
  const auto q = kernel_oracle::quant_of(ir::DType::kU8, 0.1f, 123);
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, ir::DType::kU8, {1, 2, 2, 1}), q);
  const auto y = kernel_oracle::add_output(c, "y", ir::DType::kU8, {1, 4, 4, 1}, q);
  kernel_oracle::set_node(c, ir::OpType::kPad, {x}, {y}, ir::PadAttrs{{0, 1, 1, 0}, {0, 1, 1, 0}, 0.0f});
  const plan::Plan plan = make_operator_plan(c.graph);
  const auto kernel = prepare_kernel({c.graph, plan, plan.steps.at(0).call()});
  ASSERT_TRUE(kernel) << kernel.error().format();
  testing::RecordingEmitter emitter;
  ASSERT_TRUE((*kernel)->emit(emitter));
  ASSERT_EQ(emitter.calls.size(), 1u);
  EXPECT_EQ(emitter.calls[0].function, "tf_x8_pad");
  const auto& fields = emitter.fields_of(emitter.calls[0].arguments[2]);
  EXPECT_EQ(fields[0].second, "{0, 1, 1, 0}");
  EXPECT_EQ(fields[2].second, "{0x7b, 0x00, 0x00, 0x00}");
}

TEST(DataMovementEmit, PlanCopiesEmitTfX8CopyWithTheElementSize) {
  OracleCase c;
  Random r(4);
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, ir::DType::kF32, {1, 2, 2, 3}));
  kernel_oracle::add_output(c, "y", ir::DType::kF32, {1, 2, 2, 3});
  (void)x;
  plan::Plan plan;
  plan.buffers = {{"x", plan::BufferRole::kModelInput, ir::DType::kF32, 48, 4, -1},
                  {"y", plan::BufferRole::kModelOutput, ir::DType::kF32, 48, 4, -1}};
  plan::KernelCall copy;
  copy.mode = plan::CallMode::kCopy;
  copy.inputs = {plan::make_dense_view(0, {1, 2, 2, 3})};
  copy.outputs = {plan::make_dense_view(1, {1, 2, 2, 3})};
  const auto kernel = prepare_kernel({c.graph, plan, copy});
  ASSERT_TRUE(kernel) << kernel.error().format();
  testing::RecordingEmitter emitter;
  ASSERT_TRUE((*kernel)->emit(emitter));
  ASSERT_EQ(emitter.calls.size(), 1u);
  EXPECT_EQ(emitter.calls[0].function, "tf_x8_copy");
  EXPECT_EQ(emitter.calls[0].arguments, (std::vector<std::string>{"&in0", "&out0", "4"}));
}

// --- what is not built ---------------------------------------------------------

TEST(DataMovementBinding, AConcatOfAConstantIsNotBuiltYet) {
  OracleCase c;
  Random r(5);
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, ir::DType::kF32, {1, 2}));
  const auto k = kernel_oracle::add_constant(c, "k", kernel_oracle::random_tensor(r, ir::DType::kF32, {1, 3}));
  const auto y = kernel_oracle::add_output(c, "y", ir::DType::kF32, {1, 5});
  kernel_oracle::set_node(c, ir::OpType::kConcat, {x, k}, {y}, ir::ConcatAttrs{1});
  const auto actual = testing::run_operator_plan(c.graph, c.inputs);
  ASSERT_FALSE(actual);
  EXPECT_EQ(actual.error().code, ExitCode::kBadCommandLine);
  EXPECT_EQ(actual.error().node, "Concat");
  EXPECT_NE(actual.error().message.find("a constant input"), std::string::npos) << actual.error().format();
}

}  // namespace
}  // namespace tinyfit::exec
