// Test support for primitive selection (driver/select_workspaces.h,
// driver/pareto.h): a net whose convolutions each have a faster primitive
// that needs a workspace, and a cost table that says how much faster.
#pragma once

#include <gtest/gtest.h>

#include "analysis/buffer_graph.h"
#include "analysis/memory_profile.h"
#include "cost/cost_table.h"
#include "ir/verify_graph.h"
#include "plan/build_plan.h"
#include "support/conv_test_nets.h"

namespace tinyfit::exec::selection_test {

inline constexpr const char* kDirect = "tf_qs8_conv2d_direct";
inline constexpr const char* kIm2col = "tf_qs8_conv2d_im2col__dsp";

// Two int8 3x3 convolutions (the fastest primitive of each needs an im2col
// workspace): 12x12x8 -> 12x12x16 -> 12x12x4.
inline conv_test::Net make_two_convs() {
  conv_test::Net net;
  conv_test::Layer layer;
  layer.kernel_h = layer.kernel_w = 3;
  layer.pad = {1, 1, 1, 1};
  layer.out_channels = 16;
  const ir::TensorId a = net.add_layer("conv_a", net.add_input({1, 12, 12, 8}), layer);
  layer.out_channels = 4;
  net.set_output(net.add_layer("conv_b", a, layer));
  EXPECT_TRUE(ir::verify_graph(net.graph).has_value());
  return net;
}

// Instructions per step of an im2col GEMM's dot product (3 pixels x 2
// channels x 4 inputs) at one instruction per multiply-accumulate: the im2col
// rows may use only their own counts (cost/feature_mask.h).
inline constexpr double kGemmStepAtOnePerMac = 24.0;

// A table in which the direct kernel costs 4 instructions per MAC in bounds
// and the im2col one 1 per MAC of its GEMM (padding taps included; only the
// ratio matters to the choice); `with_im2col` false leaves the im2col kernel
// unmeasured.
inline cost::CostTable make_table(bool with_im2col) {
  cost::CostTable table;
  table.target = "test";
  cost::KernelCost direct;
  cost::at(direct.coefficients, cost::Feature::kInboundWork) = 4.0;
  table.kernels[kDirect] = direct;
  if (with_im2col) {
    cost::KernelCost im2col;
    cost::at(im2col.coefficients, cost::Feature::kGemmDotSteps) = kGemmStepAtOnePerMac;
    table.kernels[kIm2col] = im2col;
  }
  return table;
}

// The model's order, whole operators, no workspaces.
inline plan::Plan build_given_plan(const ir::Graph& graph) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  return plan::build_operator_plan(graph, bg, analysis::given_order(bg));
}

}  // namespace tinyfit::exec::selection_test
