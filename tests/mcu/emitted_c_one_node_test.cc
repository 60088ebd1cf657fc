// Emitted C on the smallest graphs (issue 5): one operator each, from the
// kernel oracle's seeded case makers (tests/support), lowered to an ordinary
// plan, emitted, built with the host compiler (-std=c99 -Wall -Wextra -Werror)
// and for the Cortex-M4F board, run on both, and compared byte for byte with
// the plan executor, which runs the same kernels inside the compiler. Cheap
// enough for every CI run (~0.5 s per case), so every kernel with an emitter
// goes through a C compiler and an emulated microcontroller. A kernel not
// built yet skips its case and names itself. One more case runs a row-loop
// plan with nested channel loops (Plan v2): C loops, views moving with them
// and BlockConcat copies, on both.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "checked_model.h"
#include "emitted_build.h"
#include "exec/add_kernel_workspaces.h"
#include "exec/wide_weights.h"
#include "exec/plan_executor.h"
#include "plan/lower_row_loop.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"
#include "support/conv_test_nets.h"
#include "support/kernel_oracle_reduce_move_cases.h"
#include "support/inverted_bottleneck_nets.h"
#include "support/nested_loops.h"
#include "support/overlap_plans.h"
#include "support/random_row_chain.h"

namespace tinyfit::mcu {
namespace {

using ir::DType;
using ir::OpType;
using kernel_oracle::ConvKind;
using kernel_oracle::OracleCase;
using kernel_oracle::Random;

// A board with more SRAM than any one-node case needs (the largest oracle
// shapes are a few KiB) plus the 8 KiB stack of mps2.ld.
constexpr int64_t kBoardRamBytes = 256 * 1024;

// Whether the emitted model calls the runtime kernel `kernel`.
bool calls_kernel(const EmittedBuild& build, std::string_view kernel) {
  return std::find(build.model.kernels.begin(), build.model.kernels.end(), kernel) != build.model.kernels.end();
}

struct OneNodeCase {
  std::string name;
  std::function<OracleCase(Random&)> make;
};

// A placed plan of `m`'s graph on the board: verified, run by the plan
// executor (which must equal the reference), emitted and built for the
// Cortex-M4, calling `kernel`, its outputs byte for byte the plan executor's.
void expect_board_run_as_plan_executor(const CheckedModel& m, const plan::Plan& plan, const std::string& kernel,
                                       const std::string& name) {
  ASSERT_TRUE(plan::verify_plan(m.graph, plan)) << name;
  Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m.graph, plan, m.inputs);
  ASSERT_TRUE(executed) << executed.error().format();
  EXPECT_EQ(executed->at(0).bytes, m.reference.at(0).bytes) << name << ": the plan executor against the reference";
  Result<EmittedBuild> build =
      emit_and_build(m.graph, plan, m.inputs, *executed, Target::kCortexM4, kBoardRamBytes, name);
  ASSERT_TRUE(build) << build.error().format();
  EXPECT_TRUE(calls_kernel(*build, kernel)) << name << " runs " << kernel;
  Result<ProgramReport> report = run_program(Target::kCortexM4, build->executable);
  ASSERT_TRUE(report) << report.error().format();
  EXPECT_EQ(describe_byte_difference(report->outputs.at(0), executed->at(0)), "") << name;
}

std::vector<OneNodeCase> list_cases() {
  std::vector<OneNodeCase> cases = {
      {"Conv2D_i8", [](Random& r) { return make_conv_case(r, DType::kI8, ConvKind::kConv); }},
      {"DepthwiseConv2D_i8", [](Random& r) { return make_conv_case(r, DType::kI8, ConvKind::kDepthwise); }},
      {"FullyConnected_i8", [](Random& r) { return make_fully_connected_case(r, DType::kI8); }},
      {"Conv2D_f32", [](Random& r) { return make_conv_case(r, DType::kF32, ConvKind::kConv); }},
      {"Clip_i8", [](Random& r) { return make_clip_case(r, DType::kI8); }},
      {"MaxPool_i8", [](Random& r) { return make_pool_case(r, DType::kI8, OpType::kMaxPool); }},
      {"AveragePool_i8", [](Random& r) { return make_pool_case(r, DType::kI8, OpType::kAveragePool); }},
      {"Mean_i8", [](Random& r) { return make_mean_case(r, DType::kI8); }},
      {"Concat_i8", [](Random& r) { return make_concat_case(r, DType::kI8); }},
      {"Split_i8", [](Random& r) { return make_split_case(r, DType::kI8); }},
      {"Slice_i8", [](Random& r) { return make_slice_case(r, DType::kI8); }},
      {"Transpose_i8", [](Random& r) { return make_transpose_case(r, DType::kI8); }},
      {"Pad_i8", [](Random& r) { return make_pad_case(r, DType::kI8); }},
      // An alias: no kernel call; the output is read where the input was written.
      {"Reshape_i8", [](Random& r) { return make_reshape_case(r, DType::kI8); }},
      {"Quantize_f32_i8", [](Random& r) { return make_quantize_case(r, DType::kF32, DType::kI8); }},
  };
  for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul}) {
    cases.push_back({std::string(ir::op_type_name(op)) + "_i8",
                     [op](Random& r) { return make_binary_case(r, DType::kI8, op); }});
  }
  // The quantized Add / Sub fast loops on the board (SMMLAR, SSAT, SSUB8/SEL).
  cases.push_back({"Add_i8_edges", [](Random& r) { return make_add_edge_case(r, DType::kI8, OpType::kAdd, 13); }});
  cases.push_back({"Sub_u8_edges", [](Random& r) { return make_add_edge_case(r, DType::kU8, OpType::kSub, 6); }});
  for (OpType op : {OpType::kSigmoid, OpType::kSoftmax, OpType::kHardSwish}) {
    cases.push_back({std::string(ir::op_type_name(op)) + "_i8",
                     [op](Random& r) { return make_unary_case(r, DType::kI8, op); }});
  }
  return cases;
}

// Test names, not bytes, in gtest's parameter printout.
void PrintTo(const OneNodeCase& c, std::ostream* out) { *out << c.name; }

class EmittedCOneNode : public ::testing::TestWithParam<OneNodeCase> {};

// Skips when a kernel, binding or emitter is not built yet (exit 2).
#define TINYFIT_SKIP_IF_NOT_BUILT(result, what)                                          \
  if (!(result) && (result).error().code == ExitCode::kBadCommandLine) {                \
    GTEST_SKIP() << what << " not built yet: " << (result).error().format();            \
  }

TEST_P(EmittedCOneNode, HostAndCortexM4RunsEqualThePlanExecutorByteForByte) {
  Random r(20261123);  // one fixed case per maker; the oracle test covers the shape space
  OracleCase c = GetParam().make(r);
  Result<CheckedModel> m = make_checked_model(std::move(c.graph), std::move(c.inputs));
  ASSERT_TRUE(m) << m.error().format();
  Result<plan::Plan> plan = build_technique_plan(m->graph, Technique::kOrdinary);
  ASSERT_TRUE(plan) << plan.error().format();
  Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m->graph, *plan, m->inputs);
  TINYFIT_SKIP_IF_NOT_BUILT(executed, "runtime kernel");
  ASSERT_TRUE(executed) << executed.error().format();

  Result<codegen::EmittedModel> first = codegen::emit_c_model(m->graph, *plan, {});
  TINYFIT_SKIP_IF_NOT_BUILT(first, "emitter");
  ASSERT_TRUE(first) << first.error().format();
  Result<codegen::EmittedModel> second = codegen::emit_c_model(m->graph, *plan, {});
  ASSERT_TRUE(second);
  ASSERT_EQ(first->files.size(), second->files.size());
  for (size_t i = 0; i < first->files.size(); ++i) {
    EXPECT_EQ(first->files[i].text, second->files[i].text) << first->files[i].path << " differs between emissions";
  }

  for (Target target : {Target::kHost, Target::kCortexM4}) {
    if (std::string missing = find_missing_tools(target); !missing.empty()) {
      ADD_FAILURE() << missing << " is not installed (scripts/install_deps.sh)";
      continue;
    }
    const std::string name = "one_node/" + GetParam().name + "_" + std::string(target_name(target));
    Result<EmittedBuild> build =
        emit_and_build(m->graph, *plan, m->inputs, *executed, target, kBoardRamBytes, name);
    ASSERT_TRUE(build) << build.error().format();
    Result<ProgramReport> report = run_program(target, build->executable);
    ASSERT_TRUE(report) << report.error().format();
    ASSERT_EQ(report->outputs.size(), executed->size());
    for (size_t o = 0; o < executed->size(); ++o) {
      EXPECT_EQ(describe_byte_difference(report->outputs[o], (*executed)[o]), "")
          << target_name(target) << " output " << o << " vs the plan executor (" << build->executable << ")";
    }
  }
}

// Chain 89 of tests/support/random_row_chain.h (int8, 12 x 5 input):
// convolutions, pools, a depthwise convolution and a residual Add, as one row
// loop of 2 output rows (6 iterations, 4 carried buffers moved by BlockConcat
// copies), each call inside a channel loop of 2 channels.
TEST(EmittedCRowLoop, HostAndCortexM4RunsEqualThePlanExecutorAndTheReference) {
  row_chain::ChainSpec spec;
  spec.seed = 89;
  spec.operators = 6;
  spec.rows = 12;
  spec.cols = 5;
  OracleCase c = row_chain::make_random_row_chain(spec);
  Result<CheckedModel> m = make_checked_model(std::move(c.graph), std::move(c.inputs));
  ASSERT_TRUE(m) << m.error().format();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(m->graph);
  Result<plan::Plan> rows = plan::build_row_loop_plan(m->graph, bg, analysis::given_order(bg), {{{0, 1, 2, 3, 4, 5}, 2}});
  ASSERT_TRUE(rows) << rows.error().format();
  plan::Plan plan = exec::testing::nest_channel_loops(m->graph, std::move(*rows), 2);
  ASSERT_TRUE(plan::place_plan(plan, "greedy-by-size", {}));
  ASSERT_TRUE(plan::verify_plan(m->graph, plan));
  Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m->graph, plan, m->inputs);
  ASSERT_TRUE(executed) << executed.error().format();
  for (size_t o = 0; o < executed->size(); ++o) {
    EXPECT_EQ(describe_byte_difference((*executed)[o].bytes, m->reference[o]), "") << "plan executor vs reference";
  }
  for (Target target : {Target::kHost, Target::kCortexM4}) {
    if (std::string missing = find_missing_tools(target); !missing.empty()) {
      ADD_FAILURE() << missing << " is not installed (scripts/install_deps.sh)";
      continue;
    }
    const std::string name = "row_loop/chain89_" + std::string(target_name(target));
    Result<EmittedBuild> build = emit_and_build(m->graph, plan, m->inputs, *executed, target, kBoardRamBytes, name);
    ASSERT_TRUE(build) << build.error().format();
    Result<ProgramReport> report = run_program(target, build->executable);
    ASSERT_TRUE(report) << report.error().format();
    ASSERT_EQ(report->outputs.size(), executed->size());
    for (size_t o = 0; o < executed->size(); ++o) {
      EXPECT_EQ(describe_byte_difference(report->outputs[o], (*executed)[o]), "")
          << target_name(target) << " output " << o << " vs the plan executor (" << build->executable << ")";
    }
  }
}

// MobileNetV2's first blocks in small, int8, as one row loop over the sink's
// 4 rows that walks two steps per row (plan/lower_row_loop.h, most_rate 2):
// a 3x3 stride-2 stem, a depthwise and a 1x1 projection one row a step, the
// 1x1 expansion read by a 3x3 stride-2 depthwise laid out from its first kept
// row, and the sink one row every two steps (Bounds with a divisor, the
// generated loop_bound_divided()); with and without the fast kernels'
// workspaces. The host's and the board's bytes must equal the plan
// executor's, and the executor's the reference's.
TEST(EmittedCRowLoop, TwoStepsPerSinkRowRunOnHostAndCortexM4AsThePlanExecutor) {
  exec::conv_test::Net net;
  exec::conv_test::Layer stem, depthwise, project, expand, strided, sink;
  stem.out_channels = 8, stem.kernel_h = stem.kernel_w = 3, stem.stride = 2, stem.pad = {1, 1, 1, 1};
  stem.activation = exec::conv_test::relu6();
  depthwise.op = OpType::kDepthwiseConv2D, depthwise.out_channels = 8;
  depthwise.kernel_h = depthwise.kernel_w = 3, depthwise.pad = {1, 1, 1, 1};
  depthwise.activation = exec::conv_test::relu6();
  project.out_channels = 4;
  expand.out_channels = 12, expand.activation = exec::conv_test::relu6();
  strided.op = OpType::kDepthwiseConv2D, strided.out_channels = 12;
  strided.kernel_h = strided.kernel_w = 3, strided.stride = 2, strided.pad = {1, 1, 1, 1};
  strided.activation = exec::conv_test::relu6();
  sink.out_channels = 6;
  ir::TensorId t = net.add_layer("stem", net.add_input({1, 16, 6, 3}), stem);
  t = net.add_layer("depthwise", t, depthwise);
  t = net.add_layer("project", t, project);
  t = net.add_layer("expand", t, expand);
  t = net.add_layer("strided", t, strided);
  net.set_output(net.add_layer("sink", t, sink));
  Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
  ASSERT_TRUE(m) << m.error().format();
  const analysis::BufferGraph bg = analysis::build_buffer_graph(m->graph);
  for (bool workspaces : {false, true}) {
    plan::RowLoopSpec spec{{0, 1, 2, 3, 4, 5}, 1, plan::LoopAxis::kRows, 2};
    Result<plan::Plan> plan = plan::build_row_loop_plan(m->graph, bg, analysis::given_order(bg), {spec});
    ASSERT_TRUE(plan) << plan.error().format();
    ASSERT_EQ(plan->steps.size(), 1u);
    ASSERT_EQ(plan->steps[0].loop().extent, 8) << "two steps per row of the sink's 4";
    if (workspaces) {
      ASSERT_TRUE(exec::add_kernel_workspaces(m->graph, *plan));
    }
    ASSERT_TRUE(plan::place_plan(*plan, "greedy-by-size", {}));
    ASSERT_TRUE(plan::verify_plan(m->graph, *plan));
    Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m->graph, *plan, m->inputs);
    ASSERT_TRUE(executed) << executed.error().format();
    EXPECT_EQ(describe_byte_difference(executed->at(0).bytes, m->reference.at(0)), "") << "plan executor vs reference";
    for (Target target : {Target::kHost, Target::kCortexM4}) {
      if (std::string missing = find_missing_tools(target); !missing.empty()) {
        ADD_FAILURE() << missing << " is not installed (scripts/install_deps.sh)";
        continue;
      }
      const std::string name = std::string("row_loop/two_steps_per_row_") + std::string(target_name(target)) +
                               (workspaces ? "_workspaces" : "");
      Result<EmittedBuild> build = emit_and_build(m->graph, *plan, m->inputs, *executed, target, kBoardRamBytes, name);
      ASSERT_TRUE(build) << build.error().format();
      ASSERT_GE(build->model.files.size(), 2u);
      EXPECT_NE(build->model.files[1].text.find("loop_bound_divided("), std::string::npos) << "model.c";
      Result<ProgramReport> report = run_program(target, build->executable);
      ASSERT_TRUE(report) << report.error().format();
      EXPECT_EQ(describe_byte_difference(report->outputs.at(0), executed->at(0)), "")
          << target_name(target) << " vs the plan executor (" << build->executable << ")";
    }
  }
}

// Random row chains ending in a global average or max pool, int8 and uint8,
// as one row loop through the pool: its accumulate calls fold each band of
// rows into the int32 accumulator, its finalize call after the loop writes
// the output (the *_accumulate and *_finalize kernels). The first seeds
// whose pools are an average and a maximum, for each element type.
TEST(EmittedCRowLoop, GlobalPoolsAccumulatedByRowsRunOnHostAndCortexM4AsThePlanExecutor) {
  for (ir::DType dtype : {ir::DType::kI8, ir::DType::kU8}) {
    bool ran_average = false, ran_max = false;
    for (uint64_t seed = 1; seed < 40 && !(ran_average && ran_max); ++seed) {
      row_chain::ChainSpec spec;
      spec.seed = seed;
      spec.dtype = dtype;
      spec.operators = 3;
      spec.rows = 9;
      spec.cols = 4;
      spec.global_pool = true;
      OracleCase c = row_chain::make_random_row_chain(spec);
      const bool average = c.graph.nodes.back().op == OpType::kAveragePool;
      if ((average && ran_average) || (!average && ran_max)) continue;
      (average ? ran_average : ran_max) = true;
      Result<CheckedModel> m = make_checked_model(std::move(c.graph), std::move(c.inputs));
      ASSERT_TRUE(m) << m.error().format();
      const analysis::BufferGraph bg = analysis::build_buffer_graph(m->graph);
      Result<plan::Plan> plan = plan::build_row_loop_plan(m->graph, bg, analysis::given_order(bg), {{{0, 1, 2, 3}, 2}});
      ASSERT_TRUE(plan) << plan.error().format();
      ASSERT_EQ(plan->steps.size(), 2u) << "the loop and the pool's finalize call";
      ASSERT_EQ(plan->steps[1].call().mode, plan::CallMode::kFinalize);
      ASSERT_TRUE(plan::place_plan(*plan, "greedy-by-size", {}));
      ASSERT_TRUE(plan::verify_plan(m->graph, *plan));
      Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m->graph, *plan, m->inputs);
      ASSERT_TRUE(executed) << executed.error().format();
      EXPECT_EQ(describe_byte_difference(executed->at(0).bytes, m->reference.at(0)), "")
          << "seed " << seed << ": plan executor vs reference";
      for (Target target : {Target::kHost, Target::kCortexM4}) {
        if (std::string missing = find_missing_tools(target); !missing.empty()) {
          ADD_FAILURE() << missing << " is not installed (scripts/install_deps.sh)";
          continue;
        }
        const std::string name = "row_loop/global_pool_" + std::string(ir::dtype_name(dtype)) +
                                 (average ? "_average_" : "_max_") + std::string(target_name(target));
        Result<EmittedBuild> build =
            emit_and_build(m->graph, *plan, m->inputs, *executed, target, kBoardRamBytes, name);
        ASSERT_TRUE(build) << build.error().format();
        Result<ProgramReport> report = run_program(target, build->executable);
        ASSERT_TRUE(report) << report.error().format();
        EXPECT_EQ(describe_byte_difference(report->outputs.at(0), executed->at(0)), "")
            << target_name(target) << " vs the plan executor (" << build->executable << ")";
      }
    }
    EXPECT_TRUE(ran_average && ran_max) << ir::dtype_name(dtype);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, EmittedCOneNode, ::testing::ValuesIn(list_cases()),
                         [](const auto& param_info) { return param_info.param.name; });

// The __dsp kernels (ACLE intrinsics on the board, portable C in the plan
// executor) on a chain that takes each of them: a 3x3 stride-2 Conv2D of a
// three-channel image (im2col through the staging row), a depthwise over six
// channels (a group of four and two single channels), a 1x1 Conv2D to three
// channels (im2col, or the workspace-free 1x1 kernel without workspaces), a
// 3x3 Conv2D to one channel (the window kernel's runs of nine, five interior
// pixels a row: four at a time, the last four overlapping them), one to two
// channels (its pairs) and a
// FullyConnected over the flattened
// pixels (a block of four outputs, a pair, one alone); int8 and uint8, with
// and without the kernels' workspaces, and with them and the 1x1 Conv2D's
// weights stored widened (its _wide im2col kernel). The board's bytes must
// equal the plan executor's.
TEST(EmittedCFastKernels, CortexM4RunsOfTheDspKernelsEqualThePlanExecutorByteForByte) {
  if (std::string missing = find_missing_tools(Target::kCortexM4); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  for (DType dtype : {DType::kI8, DType::kU8}) {
    exec::conv_test::Net net;
    net.dtype = dtype;
    exec::conv_test::Layer conv, depthwise, pointwise, single, narrow, fc;
    conv.out_channels = 6, conv.kernel_h = conv.kernel_w = 3, conv.stride = 2, conv.pad = {1, 1, 1, 1};
    conv.activation = exec::conv_test::relu6();
    depthwise.op = OpType::kDepthwiseConv2D, depthwise.out_channels = 6;
    depthwise.kernel_h = depthwise.kernel_w = 3, depthwise.pad = {1, 1, 1, 1};
    pointwise.out_channels = 3;
    single.out_channels = 1, single.kernel_h = single.kernel_w = 3, single.pad = {1, 1, 1, 1};
    narrow.out_channels = 2, narrow.kernel_h = narrow.kernel_w = 3, narrow.pad = {1, 1, 1, 1};
    fc.op = OpType::kFullyConnected, fc.out_channels = 7;  // a block of four, a pair, one alone
    ir::TensorId t = net.add_layer("conv", net.add_input({1, 13, 14, 3}), conv);
    t = net.add_layer("depthwise", t, depthwise);
    t = net.add_layer("pointwise", t, pointwise);
    t = net.add_layer("single", t, single);
    t = net.add_layer("narrow", t, narrow);
    net.set_output(net.add_layer("fc", t, fc, true));
    Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
    ASSERT_TRUE(m) << m.error().format();
    for (int variant = 0; variant < 3; ++variant) {
      const bool workspaces = variant > 0, wide = variant == 2;
      Result<plan::Plan> plan = build_technique_plan(m->graph, Technique::kOrdinary);
      ASSERT_TRUE(plan) << plan.error().format();
      if (workspaces) {
        Result<int> added = exec::add_kernel_workspaces(m->graph, *plan);
        ASSERT_TRUE(added && *added == 2) << "the two wide Conv2D calls take im2col workspaces";
        ASSERT_TRUE(plan::place_plan(*plan, "greedy-by-size", {}));
      }
      if (wide) {
        const auto pointwise_node = std::find_if(m->graph.nodes.begin(), m->graph.nodes.end(),
                                                 [](const ir::Node& n) { return n.name == "pointwise"; });
        ASSERT_NE(pointwise_node, m->graph.nodes.end());
        ASSERT_EQ(exec::mark_wide_weights(*plan, {static_cast<ir::NodeId>(pointwise_node - m->graph.nodes.begin())}), 1);
      }
      Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m->graph, *plan, m->inputs);
      ASSERT_TRUE(executed) << executed.error().format();
      const std::string name = std::string("fast_kernels/") + std::string(ir::dtype_name(dtype)) +
                               (workspaces ? "_workspaces" : "") + (wide ? "_wide" : "");
      Result<EmittedBuild> build =
          emit_and_build(m->graph, *plan, m->inputs, *executed, Target::kCortexM4, kBoardRamBytes, name);
      ASSERT_TRUE(build) << build.error().format();
      for (const std::string& kernel : build->model.kernels) {
        if (kernel.find("conv") != std::string::npos || kernel.find("fully") != std::string::npos) {
          EXPECT_TRUE(kernel.ends_with("__dsp") || kernel == "tf_qs8_conv2d_direct" || kernel == "tf_qu8_conv2d_direct")
              << kernel << " (only the 3x3 Conv2D without a workspace runs the direct loops)";
        }
      }
      const std::string window = std::string("tf_") + (dtype == DType::kI8 ? "qs8" : "qu8") + "_conv2d_window__dsp";
      EXPECT_TRUE(calls_kernel(*build, window))
          << name << ": the one- and two-channel 3x3 Conv2Ds run " << window;
      const std::string widened =
          std::string("tf_") + (dtype == DType::kI8 ? "qs8" : "qu8") + "_conv2d_im2col_wide__dsp";
      EXPECT_EQ(calls_kernel(*build, widened), wide) << name;
      Result<ProgramReport> report = run_program(Target::kCortexM4, build->executable);
      ASSERT_TRUE(report) << report.error().format();
      EXPECT_EQ(describe_byte_difference(report->outputs.at(0), executed->at(0)), "") << name;
    }
  }
}

// The depthwise channel-plane kernel (ACLE intrinsics on the board) with its
// workspace: 3x3 stride 1 over six channels (a group of four, then two lane
// by lane) in rows of 17 pixels (odd: the last pair computes one column past
// the row), padded on every side, int8 and uint8. The board's bytes must equal
// the plan executor's.
TEST(EmittedCFastKernels, CortexM4RunsOfTheDepthwisePlaneKernelEqualThePlanExecutorByteForByte) {
  if (std::string missing = find_missing_tools(Target::kCortexM4); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  for (DType dtype : {DType::kI8, DType::kU8}) {
    exec::conv_test::Net net;
    net.dtype = dtype;
    exec::conv_test::Layer depthwise;
    depthwise.op = OpType::kDepthwiseConv2D, depthwise.out_channels = 6;
    depthwise.kernel_h = depthwise.kernel_w = 3, depthwise.pad = {1, 1, 1, 1};
    depthwise.activation = exec::conv_test::relu6();
    net.set_output(net.add_layer("depthwise", net.add_input({1, 5, 17, 6}), depthwise));
    Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
    ASSERT_TRUE(m) << m.error().format();
    Result<plan::Plan> plan = build_technique_plan(m->graph, Technique::kOrdinary);
    ASSERT_TRUE(plan) << plan.error().format();
    Result<int> added = exec::add_kernel_workspaces(m->graph, *plan);
    ASSERT_TRUE(added && *added == 1) << "the depthwise takes its channel planes";
    ASSERT_TRUE(plan::place_plan(*plan, "greedy-by-size", {}));
    Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m->graph, *plan, m->inputs);
    ASSERT_TRUE(executed) << executed.error().format();
    const std::string name = std::string("fast_kernels/planes_") + std::string(ir::dtype_name(dtype));
    Result<EmittedBuild> build =
        emit_and_build(m->graph, *plan, m->inputs, *executed, Target::kCortexM4, kBoardRamBytes, name);
    ASSERT_TRUE(build) << build.error().format();
    const std::string kernel = std::string("tf_") + (dtype == DType::kI8 ? "qs8" : "qu8") + "_dwconv2d_planar__dsp";
    EXPECT_TRUE(calls_kernel(*build, kernel))
        << name << " runs " << kernel;
    Result<ProgramReport> report = run_program(Target::kCortexM4, build->executable);
    ASSERT_TRUE(report) << report.error().format();
    EXPECT_EQ(describe_byte_difference(report->outputs.at(0), executed->at(0)), "") << name;
  }
}

// The fused inverted bottleneck's __dsp kernel (ACLE intrinsics on the board)
// at its edges, each block one call whose output overlaps its input at the
// distance the compiler derives, in both traversals: a 1x1 expand's mid
// pixels and the output pixels three at a time across row ends, counts of 1
// and 2 mod 3 (a short last group), 1-pixel rows, input channels past a
// group of four, mid channels past a block of four, a stride-2 depthwise, a
// 7x7 depthwise (whole window rows and border rows), a stem expand (mids
// paired, windows gathered), a residual, and a block whose expand only
// saturates and whose projection clamps to ReLU6. The board's bytes must
// equal the plan executor's, which checks every read against the buffer that
// last wrote its bytes.
TEST(EmittedCFusedBottleneck, CortexM4RunsAtThePlannersDistanceEqualThePlanExecutorByteForByte) {
  if (std::string missing = find_missing_tools(Target::kCortexM4); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  struct Block {
    const char* name;
    ir::Shape input;
    exec::conv_test::BottleneckConfig config;
  };
  const Block blocks[] = {
      {"groups_across_rows", {1, 3, 5, 7}, {13, 7, 1, 1, 3, 1, true, true}},
      {"groups_stride_2", {1, 5, 7, 6}, {10, 5, 1, 1, 3, 2, false, true}},
      {"one_pixel_rows", {1, 5, 1, 6}, {10, 6, 1, 1, 3, 1, true, true}},
      {"ten_pixels", {1, 2, 5, 5}, {11, 5, 1, 1, 3, 1, true, true}},
      {"stem", {1, 9, 8, 3}, {16, 8, 3, 2, 3, 1, false, true}},
      // Whole 7x7 window rows written out, border rows two taps at a time.
      {"dw_7x7", {1, 9, 9, 8}, {20, 8, 1, 1, 7, 1, true, true}},
      // The pointwise stages' stores: saturation only (no activation) in the
      // expand, the lane-wise clamp (ReLU6) in the projection.
      {"expand_unclamped_project_relu6", {1, 3, 5, 8}, {13, 7, 1, 1, 3, 1, false, true, {}, exec::conv_test::relu6()}},
  };
  for (DType dtype : {DType::kI8, DType::kU8}) {
    for (const Block& block : blocks) {
      exec::conv_test::Net net;
      net.dtype = dtype;
      net.set_output(
          exec::conv_test::add_inverted_bottleneck(net, "block", net.add_input(block.input), block.config));
      Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
      ASSERT_TRUE(m) << m.error().format();
      for (plan::Traversal traversal : {plan::Traversal::kAscending, plan::Traversal::kDescending}) {
        const std::string name = std::string("fused_bottleneck/") + std::string(ir::dtype_name(dtype)) + "_" +
                                 block.name + "_" + std::string(plan::traversal_name(traversal));
        Result<plan::Plan> plan = plan::testing::make_one_call_overlap_plan(m->graph, traversal);
        ASSERT_TRUE(plan) << plan.error().format();
        ASSERT_TRUE(plan::verify_plan(m->graph, *plan)) << name;
        exec::ExecuteOptions options;
        options.check_overwrites = true;
        Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m->graph, *plan, m->inputs, options);
        ASSERT_TRUE(executed) << name << ": " << executed.error().format();
        EXPECT_EQ(describe_byte_difference(executed->at(0).bytes, m->reference.at(0)), "") << name;
        Result<EmittedBuild> build =
            emit_and_build(m->graph, *plan, m->inputs, *executed, Target::kCortexM4, kBoardRamBytes, name);
        ASSERT_TRUE(build) << build.error().format();
        const std::string kernel =
            std::string("tf_") + (dtype == DType::kI8 ? "qs8" : "qu8") + "_inverted_bottleneck_segment__dsp";
        EXPECT_TRUE(calls_kernel(*build, kernel))
            << name << " runs " << kernel;
        Result<ProgramReport> report = run_program(Target::kCortexM4, build->executable);
        ASSERT_TRUE(report) << report.error().format();
        EXPECT_EQ(describe_byte_difference(report->outputs.at(0), executed->at(0)), "") << name;
      }
    }
  }
}

// The one-channel depthwise kernels on the board, as partial execution runs
// them (mcunet-5fps_vww's first loop): a loop over channels, one at a time, of
// a 1x1 Conv2D into a one-channel partial buffer (pixels one byte apart) and
// the depthwise from it into its channel of the output; without workspaces
// the one-channel kernel: 3x3 windows with interior pixels (the unrolled
// path) and padded borders, stride 1 and 2, and a 5x5 window (the taps one by
// one); with them, rows of kDepthwisePlanarMinCols and more through the
// channel planes (a row's adjacent bytes widened four at a time, an odd or
// even number of plane words between the borders); int8 and uint8. The
// board's bytes must equal the plan executor's.
TEST(EmittedCFastKernels, CortexM4RunsOfTheOneChannelDepthwiseKernelEqualThePlanExecutorByteForByte) {
  if (std::string missing = find_missing_tools(Target::kCortexM4); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  struct Geometry {
    const char* name;
    ir::Shape input;
    int64_t kernel, stride;
    ir::Padding2D pad;
    bool planes;  // given the kernels' workspaces
  };
  const Geometry geometries[] = {
      {"3x3_same", {1, 7, 9, 3}, 3, 1, {1, 1, 1, 1}, false},
      {"3x3_stride_2", {1, 9, 10, 3}, 3, 2, {0, 0, 1, 1}, false},
      {"5x5_same", {1, 6, 7, 3}, 5, 1, {2, 2, 2, 2}, false},
      {"3x3_same_planes", {1, 5, 19, 3}, 3, 1, {1, 1, 1, 1}, true},
      {"3x3_valid_planes", {1, 4, 20, 3}, 3, 1, {0, 0, 0, 0}, true},
  };
  for (DType dtype : {DType::kI8, DType::kU8}) {
    for (const Geometry& g : geometries) {
      exec::conv_test::Net net;
      net.dtype = dtype;
      exec::conv_test::Layer pointwise, depthwise;
      pointwise.out_channels = 5;
      depthwise.op = OpType::kDepthwiseConv2D, depthwise.out_channels = 5;
      depthwise.kernel_h = depthwise.kernel_w = g.kernel, depthwise.stride = g.stride, depthwise.pad = g.pad;
      depthwise.activation = exec::conv_test::relu6();
      const ir::TensorId x = net.add_input(g.input);
      const ir::TensorId t = net.add_layer("pointwise", x, pointwise);
      net.set_output(net.add_layer("depthwise", t, depthwise));
      const ir::Graph& graph = net.graph;
      const ir::Shape& t_shape = graph.tensor(t).shape;
      const ir::Shape& y_shape = graph.tensor(graph.outputs[0]).shape;
      exec::conv_test::PlanBuilder b;
      const plan::BufferId xb = b.add_tensor_buffer(graph, x, plan::BufferRole::kModelInput);
      const plan::BufferId tb = b.add_buffer("t:chunk", plan::BufferRole::kPartial, dtype, t_shape[1] * t_shape[2]);
      const plan::BufferId yb = b.add_tensor_buffer(graph, graph.outputs[0], plan::BufferRole::kModelOutput);
      const plan::View partial = exec::conv_test::chunk_partial(tb, t_shape, 1);
      b.add_loop(t_shape[3], 1,
                 {exec::conv_test::make_call(0, plan::CallMode::kChunk, {plan::make_dense_view(xb, g.input)}, {partial}),
                  exec::conv_test::make_call(1, plan::CallMode::kChunk, {partial},
                                             {exec::conv_test::chunk_slice(yb, y_shape)})});
      plan::Plan plan = b.plan();
      const std::string name = std::string("fast_kernels/one_channel_depthwise_") +
                               std::string(ir::dtype_name(dtype)) + "_" + g.name;
      Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
      ASSERT_TRUE(m) << m.error().format();
      if (g.planes) {
        ASSERT_TRUE(exec::add_kernel_workspaces(m->graph, plan)) << name;
        ASSERT_TRUE(plan::place_plan(plan, "greedy-by-size", {})) << name;
      }
      expect_board_run_as_plan_executor(*m, plan,
                                        std::string("tf_") + (dtype == DType::kI8 ? "qs8" : "qu8") +
                                            (g.planes ? "_dwconv2d_planar__dsp" : "_dwconv2d_channel__dsp"),
                                        name);
    }
  }
}

// Partial execution's 1x1 chunks on the board: a 1x1 Conv2D over eight input
// channels (two words a pixel) to ten output channels, with its im2col
// workspace, in a channel loop writing each chunk into the whole output: the
// dense pointwise path runs every group of three pixels inside one call of
// im2col_pairs (conv2d_im2col_dsp.h). Chunks of 3 (odd first channels: a lone
// channel before the pairs, and after them) and of 8 (four pairs, then a last
// chunk of two), over 16, 5 and 15 pixels (a last group of one, of two, none),
// int8 and uint8. The board's bytes must equal the plan executor's, and the
// plan executor's the reference's.
TEST(EmittedCFastKernels, CortexM4RunsOfTheDensePointwiseChunksEqualThePlanExecutorByteForByte) {
  if (std::string missing = find_missing_tools(Target::kCortexM4); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  const ir::Shape inputs[] = {{1, 4, 4, 8}, {1, 1, 5, 8}, {1, 3, 5, 8}};
  for (DType dtype : {DType::kI8, DType::kU8}) {
    for (const ir::Shape& input : inputs) {
      for (int64_t tile : {int64_t{3}, int64_t{8}}) {
        exec::conv_test::Net net;
        net.dtype = dtype;
        exec::conv_test::Layer pointwise;
        pointwise.out_channels = 10;
        pointwise.activation = exec::conv_test::relu6();
        const ir::TensorId x = net.add_input(input);
        net.set_output(net.add_layer("pointwise", x, pointwise));
        const ir::Graph& graph = net.graph;
        const ir::Shape& y_shape = graph.tensor(graph.outputs[0]).shape;
        exec::conv_test::PlanBuilder b;
        const plan::BufferId xb = b.add_tensor_buffer(graph, x, plan::BufferRole::kModelInput);
        const plan::BufferId yb = b.add_tensor_buffer(graph, graph.outputs[0], plan::BufferRole::kModelOutput);
        b.add_loop(y_shape[3], tile,
                   {exec::conv_test::make_call(0, plan::CallMode::kChunk, {plan::make_dense_view(xb, input)},
                                               {exec::conv_test::chunk_slice(yb, y_shape)})});
        plan::Plan plan = b.plan();
        const std::string name = std::string("fast_kernels/pointwise_chunks_") + std::string(ir::dtype_name(dtype)) +
                                 "_" + std::to_string(input[1] * input[2]) + "px_of_" + std::to_string(tile);
        Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
        ASSERT_TRUE(m) << m.error().format();
        ASSERT_TRUE(exec::add_kernel_workspaces(m->graph, plan)) << name;
        ASSERT_TRUE(plan::place_plan(plan, "greedy-by-size", {})) << name;
        expect_board_run_as_plan_executor(
            *m, plan, std::string("tf_") + (dtype == DType::kI8 ? "qs8" : "qu8") + "_conv2d_im2col__dsp", name);
      }
    }
  }
}

// The float32 fast primitives on the board (the Cortex-M4F's FPU) on a chain
// that takes each of them with their workspaces: a 3x3 stride-1 Conv2D
// (Winograd F(2x2, 3x3), 9 x 8 outputs: partial tiles none, six channels: a
// block of four and two), a 3x3 stride-2 Conv2D and a 1x1 Conv2D (im2col +
// GEMM, a group of four pixels and a short one). The board's bytes must equal
// the plan executor's: both run the same C, without fused multiply-adds (ISO
// C99 leaves them off).
TEST(EmittedCFastKernels, CortexM4RunsOfTheFloatConvPrimitivesEqualThePlanExecutorByteForByte) {
  if (std::string missing = find_missing_tools(Target::kCortexM4); !missing.empty()) {
    GTEST_SKIP() << missing << " is not installed";
  }
  exec::conv_test::Net net;
  net.dtype = DType::kF32;
  exec::conv_test::Layer winograd, strided, pointwise;
  winograd.out_channels = 6, winograd.kernel_h = winograd.kernel_w = 3, winograd.pad = {1, 1, 1, 1};
  strided.out_channels = 5, strided.kernel_h = strided.kernel_w = 3, strided.stride = 2, strided.pad = {1, 1, 1, 1};
  strided.activation = exec::conv_test::relu6();
  pointwise.out_channels = 4;
  ir::TensorId t = net.add_layer("winograd", net.add_input({1, 9, 8, 3}), winograd);
  t = net.add_layer("strided", t, strided);
  net.set_output(net.add_layer("pointwise", t, pointwise));
  Result<CheckedModel> m = make_checked_model(std::move(net.graph), std::move(net.inputs));
  ASSERT_TRUE(m) << m.error().format();
  Result<plan::Plan> plan = build_technique_plan(m->graph, Technique::kOrdinary);
  ASSERT_TRUE(plan) << plan.error().format();
  Result<int> added = exec::add_kernel_workspaces(m->graph, *plan);
  ASSERT_TRUE(added && *added == 3) << "each Conv2D takes its fast primitive's workspace";
  ASSERT_TRUE(plan::place_plan(*plan, "greedy-by-size", {}));
  Result<std::vector<exec::TensorData>> executed = exec::execute_plan(m->graph, *plan, m->inputs);
  ASSERT_TRUE(executed) << executed.error().format();
  Result<EmittedBuild> build =
      emit_and_build(m->graph, *plan, m->inputs, *executed, Target::kCortexM4, kBoardRamBytes, "fast_kernels/f32");
  ASSERT_TRUE(build) << build.error().format();
  for (const char* kernel : {"tf_f32_conv2d_winograd", "tf_f32_conv2d_im2col"}) {
    EXPECT_TRUE(calls_kernel(*build, kernel))
        << kernel;
  }
  Result<ProgramReport> report = run_program(Target::kCortexM4, build->executable);
  ASSERT_TRUE(report) << report.error().format();
  EXPECT_EQ(describe_byte_difference(report->outputs.at(0), executed->at(0)), "");
}

}  // namespace
}  // namespace tinyfit::mcu
