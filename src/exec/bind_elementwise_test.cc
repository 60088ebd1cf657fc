// The element-wise bindings against the reference interpreter: every op x
// dtype through an operator plan, channel loops (even and uneven chunks) and
// direct chunk calls on strided or partial views (tests/support/channelwise_binding_check.h).
#include <functional>

#include "support/channelwise_binding_check.h"
#include "support/emitted_call_check.h"

namespace tinyfit::exec {
namespace {

using channelwise_test::expect_all_ways_match_reference;
using channelwise_test::make_input_constant;
using kernel_oracle::OracleCase;
using kernel_oracle::Random;
using ir::DType;
using ir::OpType;

// Seeds per op and dtype. The case makers draw ranks 1-4, extents 1-7 (one
// in five 1), broadcasts in either operand, activations from none to
// arbitrary clamps: 20 seeds hit each of those several times.
constexpr int kCases = 20;

void expect_cases_match(const std::string& name, const std::function<OracleCase(Random&)>& make) {
  for (int seed = 0; seed < kCases; ++seed) {
    Random r(static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull + std::hash<std::string>{}(name));
    expect_all_ways_match_reference(make(r), name + " seed " + std::to_string(seed));
  }
}

const char* label(DType dtype) { return dtype == DType::kF32 ? "f32" : dtype == DType::kI8 ? "i8" : "u8"; }

TEST(BinaryElementwise, AddSubMulOfTwoActivationsMatchReferenceEveryWay) {
  for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul}) {
    for (DType dtype : {DType::kI8, DType::kU8, DType::kF32}) {
      expect_cases_match(std::string(ir::op_type_name(op)) + "_" + label(dtype),
                         [=](Random& r) { return kernel_oracle::make_binary_case(r, dtype, op); });
    }
  }
}

// The quantized Add / Sub fast loops (kernel_templates/quantized_add.h) at
// their edges: runs of 1 to 17 elements per channel row, each scale case.
TEST(BinaryElementwise, QuantizedAddSubEdgeSizesMatchReferenceEveryWay) {
  for (OpType op : {OpType::kAdd, OpType::kSub}) {
    for (DType dtype : {DType::kI8, DType::kU8}) {
      for (int64_t channels : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17}) {
        expect_cases_match(std::string(ir::op_type_name(op)) + "_edge_" + std::to_string(channels) + "_" + label(dtype),
                           [=](Random& r) { return kernel_oracle::make_add_edge_case(r, dtype, op, channels); });
      }
    }
  }
}

TEST(BinaryElementwise, ConstantOperandFollowsTheChunk) {
  // The second operand becomes a graph constant (a bias-like per-channel
  // vector, a scalar, or a full tensor): kChunk calls slice it by channels.
  for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul}) {
    for (DType dtype : {DType::kI8, DType::kU8, DType::kF32}) {
      expect_cases_match(std::string(ir::op_type_name(op)) + "_const_" + label(dtype), [=](Random& r) {
        OracleCase c = kernel_oracle::make_binary_case(r, dtype, op);
        make_input_constant(c, r.chance(0.5) ? 1 : 0);
        return c;
      });
    }
  }
}

// x[1,3,5,7] + per-channel constant [7]: the common case, pinned by hand.
OracleCase make_per_channel_add(DType dtype) {
  Random r(7);
  OracleCase c;
  const auto qx = kernel_oracle::random_quant(r, dtype, 0.01, 0.2);
  const auto qc = kernel_oracle::random_quant(r, dtype, 0.01, 0.2);
  const auto qy = kernel_oracle::random_quant(r, dtype, 0.02, 0.3);
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, {1, 3, 5, 7}), qx);
  const auto k = kernel_oracle::add_constant(c, "k", kernel_oracle::random_tensor(r, dtype, {7}), qc);
  const auto y = kernel_oracle::add_output(c, "y", dtype, {1, 3, 5, 7}, qy);
  kernel_oracle::set_node(c, OpType::kAdd, {x, k}, {y}, {}, ir::FusedActivation{0.0f, 6.0f});
  return c;
}

TEST(BinaryElementwise, PerChannelConstantAddMatchesReferenceEveryWay) {
  for (DType dtype : {DType::kI8, DType::kU8, DType::kF32}) {
    expect_all_ways_match_reference(make_per_channel_add(dtype), std::string("per-channel add ") + label(dtype));
  }
}

TEST(UnaryElementwise, ClipSigmoidHardSwishMatchReferenceEveryWay) {
  for (DType dtype : {DType::kI8, DType::kU8, DType::kF32}) {
    expect_cases_match(std::string("Clip_") + label(dtype),
                       [=](Random& r) { return kernel_oracle::make_clip_case(r, dtype); });
    for (OpType op : {OpType::kSigmoid, OpType::kHardSwish}) {
      expect_cases_match(std::string(ir::op_type_name(op)) + "_" + label(dtype),
                         [=](Random& r) { return kernel_oracle::make_unary_case(r, dtype, op); });
    }
  }
}

TEST(Quantize, FloatAndIntegerRequantizeMatchReferenceEveryWay) {
  const std::pair<DType, DType> pairs[] = {{DType::kF32, DType::kI8}, {DType::kF32, DType::kU8},
                                           {DType::kI8, DType::kU8},  {DType::kU8, DType::kI8},
                                           {DType::kI8, DType::kI8},  {DType::kU8, DType::kU8}};
  for (const auto& [in, out] : pairs) {
    expect_cases_match(std::string("Quantize_") + label(in) + "_" + label(out),
                       [=](Random& r) { return kernel_oracle::make_quantize_case(r, in, out); });
  }
}

TEST(Dequantize, ByteTableMatchesReferenceEveryWay) {
  for (DType dtype : {DType::kI8, DType::kU8}) {
    expect_cases_match(std::string("Dequantize_") + label(dtype),
                       [=](Random& r) { return kernel_oracle::make_dequantize_case(r, dtype); });
  }
}

TEST(BinaryElementwise, InPlaceOverADyingInputMatchesReference) {
  // x -> Sigmoid -> s -> Add(s, k) -> y: s dies at the Add, which then
  // writes y over s (analysis/inplace.h).
  for (DType dtype : {DType::kI8, DType::kF32}) {
    Random r(11);
    OracleCase c;
    const auto qx = kernel_oracle::random_quant(r, dtype, 0.02, 0.1);
    // Sigmoid's TFLite output parameters (scale 1/256 at the type's minimum).
    const auto qs = kernel_oracle::quant_of(dtype, 1.0f / 256, dtype == DType::kF32 ? 0 : ir::dtype_min(dtype));
    const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, {1, 4, 3, 5}), qx);
    const auto s = kernel_oracle::add_tensor(c, "s", dtype, {1, 4, 3, 5}, qs);
    const auto k = kernel_oracle::add_constant(c, "k", kernel_oracle::random_tensor(r, dtype, {5}, 0, 1), qs);
    const auto y = kernel_oracle::add_output(c, "y", dtype, {1, 4, 3, 5}, kernel_oracle::quant_of(dtype, 1.0f / 128, 0));
    kernel_oracle::set_node(c, OpType::kSigmoid, {x}, {s});
    kernel_oracle::set_node(c, OpType::kAdd, {s, k}, {y});
    c.graph.nodes[1].name = "add";
    const analysis::BufferGraph bg = analysis::build_buffer_graph(c.graph);
    const analysis::Order order = analysis::given_order(bg);
    const analysis::InplaceResult inplace = analysis::apply_inplace(bg, order);
    ASSERT_EQ(inplace.merges.size(), 1u) << "the Add runs in place over s";
    plan::Plan plan = plan::build_operator_plan(c.graph, inplace.graph, order);
    ASSERT_TRUE(plan::place_plan(plan, "best", {}).has_value());
    ASSERT_TRUE(plan::verify_plan(c.graph, plan).has_value());
    auto actual = execute_plan(c.graph, plan, c.inputs);
    ASSERT_TRUE(actual.has_value()) << actual.error().format();
    auto expected = run_reference(c.graph, c.inputs);
    ASSERT_TRUE(expected.has_value());
    EXPECT_EQ(channelwise_test::compare_exactly(actual->at(0), expected->at(0)), "") << label(dtype);
  }
}

TEST(ElementwiseBinding, EmitsTheSameCallAsRun) {
  for (DType dtype : {DType::kI8, DType::kU8, DType::kF32}) {
    emit_test::expect_emits_call_of_run(make_per_channel_add(dtype));
    Random r(3);
    emit_test::expect_emits_call_of_run(kernel_oracle::make_unary_case(r, dtype, OpType::kSigmoid));
    emit_test::expect_emits_call_of_run(kernel_oracle::make_binary_case(r, dtype, OpType::kMul));
  }
  Random r(5);
  emit_test::expect_emits_call_of_run(kernel_oracle::make_quantize_case(r, DType::kF32, DType::kI8));
  emit_test::expect_emits_call_of_run(kernel_oracle::make_dequantize_case(r, DType::kU8));
}

TEST(ElementwiseBinding, UnsupportedDtypeSaysNotBuiltYet) {
  // A 16-bit Sigmoid: the reference handles only i8/u8/f32, and so do the kernels.
  Random r(1);
  OracleCase c;
  const auto x = kernel_oracle::add_input(c, "x", exec::TensorData::zeros(DType::kI16, {1, 2, 2, 3}),
                                          kernel_oracle::quant_of(DType::kI8, 0.1f, 0));
  const auto y = kernel_oracle::add_output(c, "y", DType::kI16, {1, 2, 2, 3});
  kernel_oracle::set_node(c, OpType::kSigmoid, {x}, {y});
  const plan::Plan plan = channelwise_test::build_channel_loop_plan(c.graph, 3);
  auto kernel = prepare_kernel(KernelCallContext{c.graph, plan, plan.steps[0].loop().body[0].call()});
  ASSERT_FALSE(kernel.has_value());
  EXPECT_EQ(kernel.error().code, ExitCode::kBadCommandLine);
  EXPECT_NE(kernel.error().message.find("no runtime kernel for i16 -> i16"), std::string::npos)
      << kernel.error().message;
}

}  // namespace
}  // namespace tinyfit::exec
