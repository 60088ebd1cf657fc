// Row-range calls of the window operators (Conv2D, DepthwiseConv2D, MaxPool,
// AveragePool) in qs8, qu8 and f32: a loop over the node's output rows whose
// call writes a range of rows, either into a row slice of the whole output or
// into a partial buffer copied out after it, and reads the whole input, the
// window of input rows those rows need (a view with a global origin), or that
// window copied into a partial buffer first. Every chunking gives the whole
// call's bytes, and the reference's (bit-exact for integers, summation-order
// tolerance for float); emit() makes the same call, the views carrying the
// rows.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "support/kernel_oracle_cases.h"
#include "support/kernel_oracle_reduce_move_cases.h"
#include "support/plan_runs.h"
#include "support/recording_emitter.h"
#include "exec/reference_interpreter.h"
#include "ir/op_decl.h"

namespace tinyfit::exec {
namespace {

using ir::DType;
using ir::OpType;
using kernel_oracle::OracleCase;
using kernel_oracle::Random;

enum class RowViews {
  kSliceOfWholeOutput,     // the call writes rows of the whole output (a slice), from the whole input
  kThroughPartialBuffer,   // the call writes a partial buffer of `tile` rows, then a kCopy into the whole output
  kWindowOfWholeInput,     // the call reads only its window's rows of the whole input (origin = the window's first row)
  kWindowInPartialBuffer,  // a kCopy moves the window's rows into a partial buffer, which the call reads
};

// The input rows node 0's window reads for the loop's chunk of output rows.
plan::BoundRange window_of_chunk(const ir::Graph& graph, int64_t out_rows) {
  const ir::Node& node = graph.nodes.at(0);
  const ir::AxisMap map = ir::op_decl(node.op).map_axes(graph, node);
  ir::Window window;
  for (const ir::AxisLink& link : map.links) {
    if (link.output_axis == 1) window = link.window;
  }
  return plan::compose_window(plan::make_chunk_bound(plan::BoundOf::kChunkBegin, out_rows),
                              plan::make_chunk_bound(plan::BoundOf::kChunkEnd, out_rows), window,
                              graph.input_tensor(node, 0).shape[1]);
}

// The most rows of x any chunk's window reads.
int64_t count_window_rows(const plan::BoundRange& window, int64_t out_rows, int64_t tile) {
  int64_t rows = 0;
  for (int64_t begin = 0; begin < out_rows; begin += tile) {
    const ir::Range chunk{begin, std::min(begin + tile, out_rows)};
    rows = std::max(rows, plan::evaluate_bound(window.last, chunk, out_rows) -
                              plan::evaluate_bound(window.first, chunk, out_rows));
  }
  return rows;
}

// A loop over the output rows of node 0 (one input, one output), `tile` rows
// at a time, the last chunk shorter when tile does not divide the rows.
plan::Plan make_row_chunk_plan(const ir::Graph& graph, int64_t tile, RowViews views) {
  const ir::Tensor& x = graph.tensor(graph.inputs.at(0));
  const ir::Tensor& y = graph.tensor(graph.outputs.at(0));
  const int64_t out_rows = y.shape[1];
  plan::Plan plan;
  const auto add_buffer = [&](const std::string& name, plan::BufferRole role, const ir::Tensor& t, int64_t rows) {
    const int64_t elements = t.shape[0] * rows * t.shape[2] * t.shape[3];
    plan.buffers.push_back({name, role, t.dtype, elements * ir::dtype_size_bytes(t.dtype), 4, -1});
    return static_cast<plan::BufferId>(plan.buffers.size() - 1);
  };
  const plan::BufferId whole_x = add_buffer(x.name, plan::BufferRole::kModelInput, x, x.shape[1]);
  const plan::BufferId whole_y = add_buffer(y.name, plan::BufferRole::kModelOutput, y, out_rows);
  plan.inputs = {whole_x};
  plan.outputs = {whole_y};
  const plan::View rows_of_y = plan::follow_chunk(plan::make_dense_view(whole_y, y.shape), 0, 1, out_rows, false);
  const plan::BoundRange window = window_of_chunk(graph, out_rows);
  plan::View window_of_x = plan::make_dense_view(whole_x, x.shape);
  window_of_x.sweeps.push_back({0, 1, window.first, window.last, plan::make_constant_bound(0)});
  plan::KernelCall node_call;
  node_call.node = 0;
  node_call.inputs = {plan::make_dense_view(whole_x, x.shape)};
  node_call.outputs = {rows_of_y};
  plan::Loop loop{"row-chunks", plan::LoopAxis::kRows, out_rows, tile, {}};
  const auto copy = [](const plan::View& from, const plan::View& to) {
    plan::KernelCall call;
    call.mode = plan::CallMode::kCopy;
    call.inputs = {from};
    call.outputs = {to};
    return plan::Step{call};
  };
  switch (views) {
    case RowViews::kSliceOfWholeOutput:
      loop.body.push_back({node_call});
      break;
    case RowViews::kThroughPartialBuffer: {
      const plan::BufferId partial_y = add_buffer(y.name + ":rows", plan::BufferRole::kPartial, y, tile);
      ir::Shape partial_shape = y.shape;
      partial_shape[1] = tile;
      const plan::View partial = plan::follow_chunk(plan::make_dense_view(partial_y, partial_shape), 0, 1, out_rows, true);
      node_call.outputs = {partial};
      loop.body.push_back({node_call});
      loop.body.push_back(copy(partial, rows_of_y));
      break;
    }
    case RowViews::kWindowOfWholeInput:
      node_call.inputs = {window_of_x};
      loop.body.push_back({node_call});
      break;
    case RowViews::kWindowInPartialBuffer: {
      const int64_t rows = count_window_rows(window, out_rows, tile);
      const plan::BufferId partial_x = add_buffer(x.name + ":window", plan::BufferRole::kPartial, x, rows);
      ir::Shape partial_shape = x.shape;
      partial_shape[1] = rows;
      plan::View partial = plan::make_dense_view(partial_x, partial_shape);
      partial.shape[1] = x.shape[1];
      partial.sweeps.push_back({0, 1, window.first, window.last, window.first});  // holds the window from its first row
      node_call.inputs = {partial};
      loop.body.push_back(copy(window_of_x, partial));
      loop.body.push_back({node_call});
      break;
    }
  }
  plan.steps.push_back(plan::Step{std::move(loop)});
  return plan;
}

// Tiles of one row, two rows, rows - 1 (uneven: a last chunk of one row) and
// all rows (one iteration), those within [1, rows].
std::vector<int64_t> tiles_for(int64_t rows) {
  std::vector<int64_t> tiles;
  for (int64_t tile : {int64_t{1}, int64_t{2}, rows - 1, rows}) {
    if (tile >= 1 && tile <= rows && (tiles.empty() || tiles.back() != tile)) tiles.push_back(tile);
  }
  return tiles;
}

void expect_row_chunks_match(const OracleCase& c, const std::string& name) {
  Result<std::vector<TensorData>> expected = run_reference(c.graph, c.inputs);
  ASSERT_TRUE(expected) << name << ": " << expected.error().format();
  Result<std::vector<TensorData>> whole = testing::run_operator_plan(c.graph, c.inputs);
  ASSERT_TRUE(whole) << name << ": " << whole.error().format();
  const int64_t rows = c.graph.tensor(c.graph.outputs[0]).shape[1];
  for (int64_t tile : tiles_for(rows)) {
    for (RowViews views : {RowViews::kSliceOfWholeOutput, RowViews::kThroughPartialBuffer,
                           RowViews::kWindowOfWholeInput, RowViews::kWindowInPartialBuffer}) {
      const std::string context = name + ", tile " + std::to_string(tile) + " of " + std::to_string(rows) +
                                  " rows, views " + std::to_string(static_cast<int>(views));
      Result<std::vector<TensorData>> actual =
          testing::place_and_execute(c.graph, make_row_chunk_plan(c.graph, tile, views), c.inputs);
      ASSERT_TRUE(actual) << context << ": " << actual.error().format();
      // The same arithmetic per element as the whole call: the same bytes.
      EXPECT_EQ(actual->at(0).bytes, whole->at(0).bytes) << context;
      // Float kernels sum in float32, the reference in double.
      testing::expect_same_outputs(*actual, *expected, kernel_oracle::kFloatTolerance.relative, context);
    }
  }
}

const char* label(DType dtype) { return dtype == DType::kF32 ? "f32" : dtype == DType::kI8 ? "qs8" : "qu8"; }

// Random window geometries (kernel_oracle_cases.h random_window: 1-9 rows
// and cols, kernels 1, 2, 3, 5, strides 1-3, dilation 2 for convolutions,
// padding on 60%): 16 seeds per op and dtype.
constexpr int kSeeds = 16;

void expect_cases_match(OpType op, const std::function<OracleCase(Random&, DType)>& make) {
  for (DType dtype : {DType::kI8, DType::kU8, DType::kF32}) {
    const std::string name = std::string(ir::op_type_name(op)) + " " + label(dtype);
    for (int seed = 0; seed < kSeeds; ++seed) {
      Random r(static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ull + std::hash<std::string>{}(name));
      expect_row_chunks_match(make(r, dtype), name + " seed " + std::to_string(seed));
    }
  }
}

TEST(Conv2D, ChunksOfOutputRowsMatchTheWholeCall) {
  expect_cases_match(OpType::kConv2D, [](Random& r, DType dtype) {
    return kernel_oracle::make_conv_case(r, dtype, kernel_oracle::ConvKind::kConv);
  });
}

TEST(DepthwiseConv2D, ChunksOfOutputRowsMatchTheWholeCall) {
  expect_cases_match(OpType::kDepthwiseConv2D, [](Random& r, DType dtype) {
    return kernel_oracle::make_conv_case(r, dtype, kernel_oracle::ConvKind::kDepthwise);
  });
}

TEST(MaxPool, ChunksOfOutputRowsMatchTheWholeCall) {
  expect_cases_match(OpType::kMaxPool,
                     [](Random& r, DType dtype) { return kernel_oracle::make_pool_case(r, dtype, OpType::kMaxPool); });
}

TEST(AveragePool, ChunksOfOutputRowsMatchTheWholeCall) {
  expect_cases_match(OpType::kAveragePool, [](Random& r, DType dtype) {
    return kernel_oracle::make_pool_case(r, dtype, OpType::kAveragePool);
  });
}

// A 3x3 stride-2 padded window over 9 rows: 5 output rows.
OracleCase make_fixed_window_case(OpType op, Random& r) {
  OracleCase c;
  const ir::Shape x_shape{1, 9, 4, 2};
  const ir::Shape y_shape{1, 5, 2, 2};
  const ir::Padding2D pad{1, 1, 1, 1};
  const auto x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, DType::kF32, x_shape, -1, 1));
  const auto y = kernel_oracle::add_output(c, "y", DType::kF32, y_shape);
  if (op == OpType::kMaxPool) {
    ir::PoolAttrs a;
    a.kernel_h = a.kernel_w = 3;
    a.stride_h = a.stride_w = 2;
    a.pad = pad;
    kernel_oracle::set_node(c, op, {x}, {y}, a);
    return c;
  }
  // Weights: DepthwiseConv2D [1, KH, KW, Cout], Conv2D [Cout, KH, KW, Cin].
  const ir::Shape w_shape = op == OpType::kDepthwiseConv2D ? ir::Shape{1, 3, 3, 2} : ir::Shape{2, 3, 3, 2};
  const auto w = kernel_oracle::add_constant(c, "w", kernel_oracle::random_tensor(r, DType::kF32, w_shape, -1, 1));
  ir::ConvAttrs a;
  a.kernel_h = a.kernel_w = 3;
  a.stride_h = a.stride_w = 2;
  a.pad = pad;
  kernel_oracle::set_node(c, op, {x, w}, {y}, a);
  return c;
}

TEST(RowChunkBinding, EmitsTheRowsKernelWithTheRowsInItsViews) {
  Random r(5);
  for (OpType op : {OpType::kDepthwiseConv2D, OpType::kMaxPool}) {
    const OracleCase c = make_fixed_window_case(op, r);
    const plan::Plan plan = make_row_chunk_plan(c.graph, 2, RowViews::kWindowOfWholeInput);
    const KernelCallContext context{c.graph, plan, plan.steps[0].loop().body[0].call()};
    Result<std::unique_ptr<PreparedKernel>> kernel = prepare_kernel(context);
    ASSERT_TRUE(kernel) << kernel.error().format();
    testing::RecordingEmitter emitter;
    ASSERT_TRUE((*kernel)->emit(emitter));
    ASSERT_EQ(emitter.calls.size(), 1u);
    const std::string expected_name = op == OpType::kMaxPool ? "tf_f32_maxpool_direct_rows" : "tf_f32_dwconv2d_direct_rows";
    EXPECT_EQ((*kernel)->kernel_name(), expected_name);
    EXPECT_EQ(emitter.calls[0].function, expected_name);
    // input, output, parameters: the rows are the views' (tf_view origin).
    ASSERT_EQ(emitter.calls[0].arguments.size(), 3u);
    EXPECT_EQ(emitter.calls[0].arguments[0], "&in0");
    EXPECT_EQ(emitter.calls[0].arguments[1], "&out0");
  }
}

TEST(RowChunkBinding, ConvolutionRowsFromAChunkOfInputChannelsAreRefusedWithExitCode2) {
  Random r(6);
  const OracleCase c = make_fixed_window_case(OpType::kConv2D, r);
  plan::Plan plan = make_row_chunk_plan(c.graph, 2, RowViews::kSliceOfWholeOutput);
  plan::KernelCall& call = std::get<plan::KernelCall>(std::get<plan::Loop>(plan.steps[0].what).body[0].what);
  call.inputs[0].sweeps.push_back(plan::make_chunk_sweep(0, 3, 2, false));
  const KernelCallContext context{c.graph, plan, call};
  Result<std::unique_ptr<PreparedKernel>> kernel = prepare_kernel(context);
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.error().code, ExitCode::kBadCommandLine);
}

}  // namespace
}  // namespace tinyfit::exec
