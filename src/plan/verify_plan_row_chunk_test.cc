// verify_plan on chunks of output rows (kChunk calls whose output view is
// chunked on axis 1 of NHWC): valid for a node whose output rows map to input
// rows through a window (ir::op_decl map_axes), whatever its kind; refused for
// any other node, even one whose channel chunks are valid.
#include <gtest/gtest.h>

#include "plan/verify_plan.h"

namespace tinyfit::plan {
namespace {

// A one-node float graph x [1, 5, 4, 2] -> y [1, 5, 4, 2]: MaxPool 3x3,
// stride 1, padding 1 (a window on the rows), or Sigmoid (rows map to the
// same rows: identity, no window; an element-wise node, channel chunks valid).
ir::Graph make_graph(ir::OpType op) {
  ir::Graph graph;
  const ir::Shape shape{1, 5, 4, 2};
  for (const char* name : {"x", "y"}) {
    ir::Tensor t;
    t.name = name;
    t.dtype = ir::DType::kF32;
    t.shape = shape;
    graph.add_tensor(std::move(t));
  }
  graph.inputs = {0};
  graph.outputs = {1};
  ir::Node node;
  node.name = "node";
  node.op = op;
  node.inputs = {0};
  node.outputs = {1};
  if (op == ir::OpType::kMaxPool) {
    ir::PoolAttrs a;
    a.kernel_h = a.kernel_w = 3;
    a.pad = {1, 1, 1, 1};
    node.attrs = a;
  }
  graph.add_node(std::move(node));
  return graph;
}

// A loop over y's 5 rows, 2 at a time: node 0 reads the whole x and writes a
// row slice of y (chunk_axis `output_chunk_axis`, 1 = rows, 3 = channels).
Plan make_chunk_plan(const ir::Graph& graph, int output_chunk_axis) {
  Plan plan;
  const ir::Shape& shape = graph.tensor(0).shape;
  const int64_t bytes = 1 * 5 * 4 * 2 * 4;  // the shape's elements, 4-byte floats
  plan.buffers = {{"x", BufferRole::kModelInput, ir::DType::kF32, bytes, 4, -1},
                  {"y", BufferRole::kModelOutput, ir::DType::kF32, bytes, 4, -1}};
  plan.inputs = {0};
  plan.outputs = {1};
  View out = make_dense_view(1, shape);
  out.shape[static_cast<size_t>(output_chunk_axis)] = 2;
  out.chunk_axis = output_chunk_axis;
  out.chunk_stride = out.strides[static_cast<size_t>(output_chunk_axis)];
  // Rows: the whole input; channels: the same channel slice of the input.
  View in = output_chunk_axis == 1 ? make_dense_view(0, shape) : out;
  in.buffer = 0;
  KernelCall call;
  call.node = 0;
  call.mode = CallMode::kChunk;
  call.inputs = {in};
  call.outputs = {out};
  plan.steps.push_back({Loop{"loop", shape[static_cast<size_t>(output_chunk_axis)], 2, {call}}});
  return plan;
}

TEST(VerifyPlan, AcceptsChunksOfOutputRowsOfAWindowOperator) {
  const ir::Graph graph = make_graph(ir::OpType::kMaxPool);
  Status status = verify_plan(graph, make_chunk_plan(graph, 1));
  EXPECT_TRUE(status) << (status ? "" : status.error().message);
}

TEST(VerifyPlan, RejectsChunksOfOutputRowsOfAnOperatorWithoutARowWindow) {
  const ir::Graph graph = make_graph(ir::OpType::kSigmoid);
  Status channels = verify_plan(graph, make_chunk_plan(graph, 3));
  EXPECT_TRUE(channels) << (channels ? "" : channels.error().message);
  Status rows = verify_plan(graph, make_chunk_plan(graph, 1));
  ASSERT_FALSE(rows);
  EXPECT_NE(rows.error().message.find("does not fit the node's kind"), std::string::npos) << rows.error().message;
}

}  // namespace
}  // namespace tinyfit::plan
