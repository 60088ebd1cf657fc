// Test support for the kernel bindings (tests only): a small graph run through
// a plan on the plan executor, either one whole call per operator or a loop
// over channel chunks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "exec/kernel_call.h"
#include "exec/plan_executor.h"
#include "plan/build_plan.h"
#include "plan/plan_memory.h"
#include "plan/verify_plan.h"

namespace tinyfit::exec::testing {

// Places (greedy-by-size), verifies and executes `plan` on `inputs`.
inline Result<std::vector<TensorData>> place_and_execute(const ir::Graph& graph, plan::Plan plan,
                                                         const std::vector<TensorData>& inputs) {
  TINYFIT_RETURN_IF_ERROR(plan::place_plan(plan, "greedy-by-size", {}));
  TINYFIT_RETURN_IF_ERROR(plan::verify_plan(graph, plan));
  return execute_plan(graph, plan, inputs);
}

// Ordinary execution: one kWhole call per operator in the given order.
inline Result<std::vector<TensorData>> run_operator_plan(const ir::Graph& graph,
                                                         const std::vector<TensorData>& inputs) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  return place_and_execute(graph, plan::build_operator_plan(graph, bg, analysis::given_order(bg)), inputs);
}

enum class ChunkViews {
  kSlicesOfWholeTensors,   // the call reads and writes channel slices of the whole tensors (row strides of C channels)
  kThroughPartialBuffers,  // kCopy into a partial buffer of `tile` channels, the call, kCopy back out
};

// A loop over the channels (last axis) of a one-node graph with one input
// and one output of the same shape: kChunk calls of node 0, `tile` channels
// at a time (the last chunk shorter when tile does not divide the channels).
inline plan::Plan make_channel_chunk_plan(const ir::Graph& graph, int64_t tile, ChunkViews views) {
  const ir::Tensor& x = graph.tensor(graph.inputs.at(0));
  const ir::Tensor& y = graph.tensor(graph.outputs.at(0));
  const int channel_axis = static_cast<int>(x.shape.size()) - 1;
  plan::Plan plan;
  const auto add_buffer = [&](const std::string& name, plan::BufferRole role, const ir::Tensor& t, int64_t channels) {
    int64_t elements = 1;
    for (size_t d = 0; d + 1 < t.shape.size(); ++d) elements *= t.shape[d];
    plan.buffers.push_back({name, role, t.dtype, elements * channels * ir::dtype_size_bytes(t.dtype), 4, -1});
    return static_cast<plan::BufferId>(plan.buffers.size() - 1);
  };
  const plan::BufferId whole_x = add_buffer(x.name, plan::BufferRole::kModelInput, x, x.shape.back());
  const plan::BufferId whole_y = add_buffer(y.name, plan::BufferRole::kModelOutput, y, y.shape.back());
  plan.inputs = {whole_x};
  plan.outputs = {whole_y};
  const int64_t channels = x.shape.back();
  const auto chunk_of_whole = [&](plan::BufferId b, const ir::Shape& shape) {
    return plan::follow_chunk(plan::make_dense_view(b, shape), 0, channel_axis, channels, false);
  };
  const auto partial = [&](plan::BufferId b, ir::Shape shape) {
    shape.back() = tile;
    return plan::follow_chunk(plan::make_dense_view(b, shape), 0, channel_axis, channels, true);
  };
  plan::Loop loop{"channel-chunks", plan::LoopAxis::kChannels, channels, tile, {}};
  const auto node_call = [&](plan::View in, plan::View out) {
    plan::KernelCall call;
    call.node = 0;
    call.mode = plan::CallMode::kChunk;
    call.inputs = {std::move(in)};
    call.outputs = {std::move(out)};
    return call;
  };
  const auto copy_call = [&](plan::View in, plan::View out) {
    plan::KernelCall call;
    call.mode = plan::CallMode::kCopy;
    call.inputs = {std::move(in)};
    call.outputs = {std::move(out)};
    return call;
  };
  if (views == ChunkViews::kSlicesOfWholeTensors) {
    loop.body.push_back({node_call(chunk_of_whole(whole_x, x.shape), chunk_of_whole(whole_y, y.shape))});
  } else {
    const plan::BufferId px = add_buffer(x.name + ":chunk", plan::BufferRole::kPartial, x, tile);
    const plan::BufferId py = add_buffer(y.name + ":chunk", plan::BufferRole::kPartial, y, tile);
    loop.body.push_back({copy_call(chunk_of_whole(whole_x, x.shape), partial(px, x.shape))});
    loop.body.push_back({node_call(partial(px, x.shape), partial(py, y.shape))});
    loop.body.push_back({copy_call(partial(py, y.shape), chunk_of_whole(whole_y, y.shape))});
  }
  plan.steps.push_back(plan::Step{std::move(loop)});
  return plan;
}

// Integers bit-exact; floats within `relative` of the expected value (plus
// 1e-6 absolute, for values near zero).
inline void expect_same_outputs(const std::vector<TensorData>& actual, const std::vector<TensorData>& expected,
                                double relative, const std::string& context) {
  ASSERT_EQ(actual.size(), expected.size()) << context;
  for (size_t o = 0; o < actual.size(); ++o) {
    ASSERT_EQ(actual[o].dtype, expected[o].dtype) << context;
    ASSERT_EQ(actual[o].bytes.size(), expected[o].bytes.size()) << context;
    if (actual[o].dtype != ir::DType::kF32) {
      EXPECT_EQ(actual[o].bytes, expected[o].bytes) << context << ", output " << o;
      continue;
    }
    const auto a = actual[o].values<float>();
    const auto e = expected[o].values<float>();
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] == e[i] || (std::isnan(a[i]) && std::isnan(e[i]))) continue;
      ASSERT_LE(std::abs(a[i] - e[i]), 1e-6 + relative * std::abs(e[i]))
          << context << ", output " << o << " element " << i << ": " << a[i] << " vs " << e[i];
    }
  }
}

}  // namespace tinyfit::exec::testing
