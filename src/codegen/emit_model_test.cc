// The emitter's promises checked on its text (tests/mcu and tests/models
// compile and run the emitted C; these only read it). The graph, float32,
// NHWC after import:
//   x 1x8x8x4 = 256 elements x 4 bytes = 1,024 bytes (model input)
//   p = MaxPool 2x2/2 (x)  1x4x4x4 = 64 x 4 = 256 bytes
//   y = Add(p, p)          1x4x4x4 = 256 bytes (model output)
#include "codegen/emit_model.h"
#include "codegen/link_transfer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <set>

#include "analysis/buffer_graph.h"
#include "support/conv_test_nets.h"
#include "support/onnx_text_model.h"
#include "plan/build_plan.h"
#include "plan/plan_memory.h"
#include "exec/conv_primitive.h"
#include "tinyfit/conv.h"

namespace tinyfit::codegen {
namespace {

struct PlannedGraph {
  ir::Graph graph;
  plan::Plan plan;
};

PlannedGraph make_planned_graph() {
  Result<ir::Graph> graph = import::import_onnx_text(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,4,8,8] x) => (float[1,4,4,4] y)
{
  p = MaxPool<kernel_shape=[2,2], strides=[2,2]>(x)
  y = Add(p, p)
}
)");
  EXPECT_TRUE(graph) << graph.error().format();
  PlannedGraph planned{graph ? std::move(*graph) : ir::Graph{}, {}};
  const analysis::BufferGraph bg = analysis::build_buffer_graph(planned.graph);
  planned.plan = plan::build_operator_plan(planned.graph, bg, analysis::Order{0, 1});
  EXPECT_TRUE(plan::place_plan(planned.plan, "greedy-by-size", {}));
  return planned;
}

const std::string& file_text(const EmittedModel& model, const std::string& path) {
  for (const EmittedFile& file : model.files) {
    if (file.path == path) return file.text;
  }
  ADD_FAILURE() << "no " << path;
  static const std::string kNone;
  return kNone;
}

// Skips when a kernel of the graph has no emitter yet (exit 2).
#define EMIT_OR_SKIP(model, planned)                                                 \
  Result<EmittedModel> model = emit_c_model((planned).graph, (planned).plan, {});   \
  if (!model && model.error().code == ExitCode::kBadCommandLine) {                  \
    GTEST_SKIP() << "emitter not built yet: " << model.error().format();            \
  }                                                                                  \
  ASSERT_TRUE(model) << model.error().format()

TEST(EmitCModel, ArenaIsOneStaticByteArrayOfExactlyTheArenaBytes) {
  const PlannedGraph planned = make_planned_graph();
  EMIT_OR_SKIP(model, planned);
  const std::string& source = file_text(*model, "model.c");
  const std::string declaration = "static uint8_t tinyfit_g_arena[" + std::to_string(planned.plan.arena_bytes) + "]";
  EXPECT_NE(source.find(declaration), std::string::npos) << source;
  EXPECT_EQ(source.find("static uint8_t "), source.rfind("static uint8_t ")) << "one arena, nothing else in SRAM";
  EXPECT_EQ(model->arena_bytes, planned.plan.arena_bytes);
  EXPECT_NE(file_text(*model, "model.h").find("#define TINYFIT_G_ARENA_BYTES " +
                                               std::to_string(planned.plan.arena_bytes) + "\n"),
            std::string::npos);
}

TEST(EmitCModel, TheSameGraphAndPlanGiveByteIdenticalFiles) {
  const PlannedGraph planned = make_planned_graph();
  EMIT_OR_SKIP(first, planned);
  const PlannedGraph again = make_planned_graph();
  EMIT_OR_SKIP(second, again);
  ASSERT_EQ(first->files.size(), second->files.size());
  for (size_t i = 0; i < first->files.size(); ++i) {
    EXPECT_EQ(first->files[i].path, second->files[i].path);
    EXPECT_EQ(first->files[i].text, second->files[i].text) << first->files[i].path;
  }
}

TEST(EmitCModel, HeaderStatesShapeAndBytesOfEveryInputAndOutput) {
  const PlannedGraph planned = make_planned_graph();
  EMIT_OR_SKIP(model, planned);
  const std::string& header = file_text(*model, "model.h");
  for (const char* line : {"#define TINYFIT_G_INPUT0_SHAPE {1, 8, 8, 4}\n", "#define TINYFIT_G_INPUT0_BYTES 1024\n",
                           "#define TINYFIT_G_OUTPUT0_SHAPE {1, 4, 4, 4}\n", "#define TINYFIT_G_OUTPUT0_BYTES 256\n",
                           "float* tinyfit_g_input(int index);", "const float* tinyfit_g_output(int index);",
                           "int tinyfit_g_invoke(void);", "int tinyfit_g_run(const float* input0, float* output0);"}) {
    EXPECT_NE(header.find(line), std::string::npos) << line << " missing from\n" << header;
  }
}

// The body of the C function that starts with `signature` (up to its closing "\n}\n").
std::string find_function_body(const std::string& source, const std::string& signature) {
  const size_t begin = source.find(signature + " {\n");
  if (begin == std::string::npos) return {};
  return source.substr(begin, source.find("\n}\n", begin) - begin);
}

TEST(EmitCModel, InputAndOutputPointersAreTheirPlanBuffersInTheArena) {
  const PlannedGraph planned = make_planned_graph();
  EMIT_OR_SKIP(model, planned);
  const std::string& source = file_text(*model, "model.c");
  const int64_t input_offset = planned.plan.buffers[static_cast<size_t>(planned.plan.inputs[0])].offset;
  const int64_t output_offset = planned.plan.buffers[static_cast<size_t>(planned.plan.outputs[0])].offset;
  const std::string input = find_function_body(source, "float* tinyfit_g_input(int index)");
  const std::string output = find_function_body(source, "const float* tinyfit_g_output(int index)");
  EXPECT_NE(input.find("case 0: return (float*)(tinyfit_g_arena + " + std::to_string(input_offset) + ");"),
            std::string::npos)
      << input;
  EXPECT_NE(output.find("case 0: return (const float*)(tinyfit_g_arena + " + std::to_string(output_offset) + ");"),
            std::string::npos)
      << output;
  EXPECT_NE(input.find("default: return 0;"), std::string::npos) << "an index out of range gives a null pointer";
}

TEST(EmitCModel, InvokeCopiesNothingAndRunIsBuiltOnIt) {
  const PlannedGraph planned = make_planned_graph();
  EMIT_OR_SKIP(model, planned);
  const std::string& source = file_text(*model, "model.c");
  const std::string invoke = find_function_body(source, "int tinyfit_g_invoke(void)");
  ASSERT_FALSE(invoke.empty()) << source;
  EXPECT_EQ(invoke.find("copy"), std::string::npos) << invoke;
  const std::string run = find_function_body(source, "int tinyfit_g_run(const float* input0, float* output0)");
  for (const char* use : {"tinyfit_g_input(0)", "tinyfit_g_invoke()", "tinyfit_g_output(0)"}) {
    EXPECT_NE(run.find(use), std::string::npos) << use << " missing from\n" << run;
  }
}

TEST(EmitCModel, CMakeListsMakesEveryEmittedCFileTheLibraryNamedByThePrefix) {
  const PlannedGraph planned = make_planned_graph();
  EMIT_OR_SKIP(model, planned);
  const std::string& cmake = file_text(*model, "CMakeLists.txt");
  EXPECT_NE(cmake.find("add_library(tinyfit_g STATIC\n"), std::string::npos) << cmake;
  EXPECT_NE(cmake.find("PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}\n"), std::string::npos) << "model.h for the firmware";
  EXPECT_NE(cmake.find("C_STANDARD 99"), std::string::npos);
  size_t c_files = 0;
  for (const EmittedFile& file : model->files) {
    if (!file.path.ends_with(".c")) continue;
    ++c_files;
    EXPECT_NE(cmake.find("  " + file.path + "\n"), std::string::npos) << file.path << " not in the library";
  }
  EXPECT_EQ(c_files, 3u) << "model.c and the MaxPool and Add kernels";
}

TEST(EmitCModel, ShipsOnlyTheKernelFilesItCalls) {
  const PlannedGraph planned = make_planned_graph();
  EMIT_OR_SKIP(model, planned);
  EXPECT_EQ(model->kernels.size(), 2u) << "one kernel for MaxPool, one for Add";
  for (const EmittedFile& file : model->files) {
    if (!file.path.starts_with("runtime/kernels/")) continue;
    const std::string stem = file.path.substr(16, file.path.size() - 16 - 2);
    EXPECT_NE(std::find(model->kernels.begin(), model->kernels.end(), "tf_" + stem), model->kernels.end())
        << file.path << " is shipped but never called";
  }
}

TEST(EmitCModel, ASingleDeviceModelShipsNoLinkLayer) {
  const PlannedGraph planned = make_planned_graph();
  EMIT_OR_SKIP(model, planned);
  for (const EmittedFile& file : model->files) {
    EXPECT_EQ(file.path.find("link"), std::string::npos) << file.path;
    EXPECT_EQ(file.text.find("tinyfit_link_"), std::string::npos) << file.path;
  }
  EXPECT_EQ(model->link_send_bytes + model->link_receive_bytes, 0);
}

// p (MaxPool's output, buffer of 1x4x4x4 float = 256 bytes) as a transfer.
LinkTransfer make_transfer_of_p(const plan::Plan& plan, LinkDirection direction) {
  LinkTransfer transfer;
  transfer.direction = direction;
  transfer.peer = 1;
  transfer.view = make_static_view(plan, plan.steps.at(0).call().outputs.at(0));
  transfer.label = "'p'";
  return transfer;
}

TEST(LinkTransferCode, AWholeDenseViewIsOneCall) {
  const PlannedGraph planned = make_planned_graph();
  const LinkTransfer transfer = make_transfer_of_p(planned.plan, LinkDirection::kSend);
  EXPECT_EQ(transfer.view.count_bytes(), 256);  // 4 x 4 x 4 floats
  const std::string code = make_link_transfer_code(transfer, 2);
  EXPECT_EQ(code.find("for ("), std::string::npos) << code;
  EXPECT_NE(code.find("status = tinyfit_link_send(1, arena + " + std::to_string(transfer.view.offset_bytes) +
                      ", 256u);"),
            std::string::npos)
      << code;
  EXPECT_NE(code.find("if (status != 0) return status;"), std::string::npos) << code;
}

TEST(LinkTransferCode, AChannelSliceMovesRunByRunInElementOrder) {
  const PlannedGraph planned = make_planned_graph();
  LinkTransfer transfer = make_transfer_of_p(planned.plan, LinkDirection::kReceive);
  // Channels [1, 3) of p: 2 floats (8 bytes) per pixel, pixels 16 bytes apart,
  // rows 64 bytes apart; the first run starts 1 float (4 bytes) in.
  transfer.view.shape = {1, 4, 4, 2};
  transfer.view.offset_bytes += 4;
  EXPECT_EQ(transfer.view.count_bytes(), 128);  // 4 x 4 x 2 floats
  const std::string code = make_link_transfer_code(transfer, 2);
  const size_t rows = code.find("for (i0 = 0; i0 < 4; ++i0) {");
  const size_t cols = code.find("for (i1 = 0; i1 < 4; ++i1) {");
  const std::string call = "status = tinyfit_link_recv(1, arena + " + std::to_string(transfer.view.offset_bytes) +
                           " + i0 * 64 + i1 * 16, 8u);";
  ASSERT_NE(rows, std::string::npos) << code;
  ASSERT_NE(cols, std::string::npos) << code;
  EXPECT_LT(rows, cols) << "rows outside, columns inside: row-major element order";
  EXPECT_NE(code.find(call), std::string::npos) << call << " missing from\n" << code;
}

TEST(LinkTransferCode, ALocalCopyWalksTheRunsBothViewsShare) {
  // A 4x4x2 float box from a 4x4x4 tensor (8-byte runs, pixels 16 bytes
  // apart) into a dense 4x4x2 buffer (one 128-byte run): 8-byte runs.
  LocalCopy copy;
  copy.from = {0, ir::DType::kF32, {1, 4, 4, 2}, {64, 16, 4, 1}, {0, 0, 0, 2}};
  copy.to = {256, ir::DType::kF32, {1, 4, 4, 2}, {32, 8, 2, 1}, {0, 0, 0, 2}};
  copy.label = "'p' channels [2, 4)";
  const std::string code = make_local_copy_code(copy, 2);
  EXPECT_NE(code.find("uint8_t* const to = arena + 256 + i0 * 32 + i1 * 8; const uint8_t* const from = arena + 0 + "
                      "i0 * 64 + i1 * 16; int32_t k; for (k = 0; k < 8; ++k) to[k] = from[k];"),
            std::string::npos)
      << code;
}

TEST(LinkTransferCode, AMoveWithinTheArenaReadsEveryByteBeforeItIsOverwritten) {
  // 100 bytes moved 40 bytes up: from the end; 40 bytes down: from the start.
  LocalCopy up{{0, ir::DType::kU8, {100}, {1}, {0}}, {40, ir::DType::kU8, {100}, {1}, {0}}, "up"};
  EXPECT_NE(make_local_copy_code(up, 2).find("for (k = 100; k > 0; --k) to[k - 1] = from[k - 1];"), std::string::npos)
      << make_local_copy_code(up, 2);
  LocalCopy down{up.to, up.from, "down"};
  EXPECT_NE(make_local_copy_code(down, 2).find("for (k = 0; k < 100; ++k) to[k] = from[k];"), std::string::npos)
      << make_local_copy_code(down, 2);
}

// --partition rows' device 0: its band's plan, then the tail's, in one arena
// (the larger), the first plan's input and the second's output in its API.
TEST(EmitCModel, ADeviceOfTwoPlansRunsBothInTheLargerArena) {
  PlannedGraph band = make_planned_graph(), tail = make_planned_graph();
  tail.plan.arena_bytes += 64;
  std::fill(band.plan.outputs.begin(), band.plan.outputs.end(), -1);
  std::fill(tail.plan.inputs.begin(), tail.plan.inputs.end(), -1);
  EmitOptions options;
  options.device = 0;
  options.device_count = 2;
  options.more_plans = {GraphPlan{&tail.graph, &tail.plan}};
  options.device_steps = {PlanStepRef{0, 0}, PlanStepRef{1, 0}, PlanStepRef{0, 1}, PlanStepRef{1, 1}};
  Result<EmittedModel> model = emit_c_model(band.graph, band.plan, options);
  ASSERT_TRUE(model) << model.error().format();
  EXPECT_EQ(model->arena_bytes, tail.plan.arena_bytes);
  EXPECT_EQ(model->input_indices, std::vector<size_t>{0});
  EXPECT_EQ(model->output_indices, std::vector<size_t>{0});
  const std::string& source = file_text(*model, "model.c");
  EXPECT_NE(source.find("static uint8_t tinyfit_g_device0_arena[" + std::to_string(tail.plan.arena_bytes) + "]"),
            std::string::npos);
  const std::string invoke = find_function_body(source, "int tinyfit_g_device0_invoke(void)");
  size_t at = 0;
  for (const char* step : {"/* step 0:", "/* step 1:", "/* step 2:", "/* step 3:"}) {
    const size_t found = invoke.find(step, at);
    ASSERT_NE(found, std::string::npos) << step << " missing or out of order in\n" << invoke;
    at = found;
  }
}

TEST(EmitCModel, ADeviceRunsItsStepsInOrderAndReturnsTheLinkStatus) {
  PlannedGraph planned = make_planned_graph();
  EmitOptions options;
  options.device = 0;
  options.device_count = 2;
  options.device_steps = {PlanStepRef{0}, make_transfer_of_p(planned.plan, LinkDirection::kSend), PlanStepRef{1}};
  Result<EmittedModel> model = emit_c_model(planned.graph, planned.plan, options);
  ASSERT_TRUE(model) << model.error().format();
  EXPECT_EQ(model->prefix, "tinyfit_g_device0");
  EXPECT_EQ(model->link_send_bytes, 256);
  const std::string& source = file_text(*model, "model.c");
  EXPECT_NE(source.find("#include \"tinyfit_link.h\""), std::string::npos);
  const std::string invoke = find_function_body(source, "int tinyfit_g_device0_invoke(void)");
  const size_t pool = invoke.find("/* step 0:"), send = invoke.find("/* link: send 'p' (256 bytes) to device 1 */"),
               add = invoke.find("/* step 2:");
  ASSERT_NE(send, std::string::npos) << invoke;
  EXPECT_LT(pool, send);
  EXPECT_LT(send, add);
  const std::string& header = file_text(*model, "model.h");
  for (const char* line : {"#define TINYFIT_G_DEVICE0_DEVICE 0\n", "#define TINYFIT_G_DEVICE0_DEVICE_COUNT 2\n",
                           "#define TINYFIT_G_DEVICE0_LINK_SEND_BYTES 256\n",
                           "#define TINYFIT_G_DEVICE0_LINK_RECEIVE_BYTES 0\n"}) {
    EXPECT_NE(header.find(line), std::string::npos) << line << " missing from\n" << header;
  }
  EXPECT_FALSE(file_text(*model, "tinyfit_link.h").empty()) << "the link interface beside model.h";
}

// A split convolution: an int8 1x1 Conv2D (8 -> 6 channels, 4x4) whose
// input channels a loop of 4 accumulates with the im2col __dsp kernel (its
// own weight layout), then tf_qs8_conv_finalize, which reads no weights
// (tinyfit/conv.h). Every weight array model.c defines is read by a call
// whose kernel reads weights; the finalize's params point to none.
TEST(EmitCModel, EveryWeightArrayIsReadByACallThatReadsWeights) {
  exec::conv_test::Net net;
  exec::conv_test::Layer project;
  project.out_channels = 6;
  const ir::TensorId x = net.add_input({1, 4, 4, 8});
  net.set_output(net.add_layer("project", x, project));
  const ir::Graph& g = net.graph;
  const ir::Shape& x_shape = g.tensor(x).shape;
  const ir::Shape& y_shape = g.tensor(g.outputs[0]).shape;
  exec::conv_test::PlanBuilder b;
  using plan::BufferRole;
  const plan::BufferId workspace =
      b.add_buffer("ws", BufferRole::kWorkspace, ir::DType::kU8, tf_conv2d_im2col_workspace_bytes(static_cast<int32_t>(x_shape.back())));
  b.plan().buffers[static_cast<size_t>(workspace)].alignment = exec::kConvWorkspaceAlignment;
  const plan::BufferId xb = b.add_tensor_buffer(g, x, BufferRole::kModelInput);
  const plan::BufferId acc = b.add_buffer("acc", BufferRole::kAccumulator, ir::DType::kI32, g.tensor(g.outputs[0]).num_elements());
  const plan::BufferId yb = b.add_tensor_buffer(g, g.outputs[0], BufferRole::kModelOutput);
  plan::KernelCall accumulate = exec::conv_test::make_call(0, plan::CallMode::kAccumulate,
                                                           {exec::conv_test::chunk_slice(xb, x_shape)},
                                                           {plan::make_dense_view(acc, y_shape)});
  accumulate.workspace = workspace;
  b.add_loop(x_shape.back(), 4, {accumulate});
  b.add_step(exec::conv_test::make_call(0, plan::CallMode::kFinalize, {plan::make_dense_view(acc, y_shape)},
                                        {plan::make_dense_view(yb, y_shape)}));
  Result<EmittedModel> model = emit_c_model(g, b.plan(), {});
  ASSERT_TRUE(model) << model.error().format();
  const std::string& source = file_text(*model, "model.c");

  // model.c's lines: "static const T NAME[] = {", "static const tf_conv_params
  // NAME = {" then "    .weights = W,", and calls "tf_f(&in0, &out0, &NAME, ...);".
  std::set<std::string> weight_arrays, functions, read_arrays;
  std::map<std::string, std::string> weights_of;  // tf_conv_params name -> its .weights
  std::istringstream lines(source);
  std::string params;
  for (std::string line; std::getline(lines, line);) {
    const std::string text = line.substr(std::min(line.find_first_not_of(' '), line.size()));
    if (text.starts_with("static const tf_conv_params ")) {
      params = text.substr(0, text.find(" = {"));
      params = params.substr(params.rfind(' ') + 1);
    } else if (text.starts_with("static const ") && text.ends_with("[] = {")) {
      std::string name = text.substr(0, text.find("[]"));
      name = name.substr(name.rfind(' ') + 1);
      if (name.find("_weights") != std::string::npos) weight_arrays.insert(name);
    } else if (text.starts_with(".weights = ") && !params.empty()) {
      weights_of[params] = text.substr(11, text.size() - 12);
      params.clear();
    } else if (text.starts_with("tf_") && text.ends_with(");")) {
      const std::string function = text.substr(0, text.find('('));
      for (const auto& [name, weights] : weights_of) {
        if (text.find("&" + name + ",") == std::string::npos && text.find("&" + name + ")") == std::string::npos) continue;
        functions.insert(function);
        if (function.ends_with("_conv_finalize")) {
          EXPECT_EQ(weights, "(const void*)0") << function << " reads no weights";
        } else {
          read_arrays.insert(weights);
        }
      }
    }
  }
  EXPECT_EQ(functions, (std::set<std::string>{"tf_qs8_conv2d_im2col_accumulate__dsp", "tf_qs8_conv_finalize"}));
  EXPECT_EQ(weight_arrays.size(), 1u) << source;
  for (const std::string& name : weight_arrays) EXPECT_TRUE(read_arrays.contains(name)) << name << " read by no call";
}

}  // namespace
}  // namespace tinyfit::codegen
