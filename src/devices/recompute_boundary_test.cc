#include "devices/recompute_boundary.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "devices/crop_rows.h"
#include "devices/device_plan.h"
#include "exec/reference_interpreter.h"
#include "ir/verify_graph.h"
#include "support/random_row_chain.h"

namespace tinyfit::devices {
namespace {

using row_chain::Activation;
using row_chain::ChainSpec;
using row_chain::OracleCase;

// x -> conv0 -> expand (1x1, 3 -> 6 channels) -> dw (3x3) -> squeeze-excite
// (mean over the columns, mean over the rows, two 1x1 convolutions, Mul)
// -> project (1x1, 6 -> 3) -> Add with conv0's output -> last (3x3): an
// MCUNetV2-SE-Large block between two convolutions. Nodes: conv0 0, expand
// 1, dw 2, the column mean 3, the row mean 4, ..., Mul 7, project 8, Add 9,
// last 10.
struct SeBlock {
  OracleCase c;
  Activation block_input, expanded, depthwise;
};

SeBlock make_se_block(uint64_t seed) {
  ChainSpec spec;
  spec.seed = seed;
  row_chain::Random r(seed);
  SeBlock b;
  b.c.graph.name = "se-block";
  b.c.graph.source_path = "se-block";
  const ir::Shape x_shape{1, 8, 4, 3};
  const ir::TensorId x = kernel_oracle::add_input(b.c, "x", kernel_oracle::random_tensor(r, spec.dtype, x_shape, -1, 1),
                                                  kernel_oracle::random_quant(r, spec.dtype, 0.01, 0.1));
  ir::ConvAttrs one;
  ir::ConvAttrs three;
  three.kernel_h = three.kernel_w = 3;
  three.pad = {1, 1, 1, 1};
  b.block_input = row_chain::add_conv_node(r, b.c, spec.dtype, {x, x_shape}, three, 3, false, "conv0");
  b.expanded = row_chain::add_conv_node(r, b.c, spec.dtype, b.block_input, one, 6, false, "expand");
  b.depthwise = row_chain::add_conv_node(r, b.c, spec.dtype, b.expanded, three, 6, true, "dw");
  const Activation excited = row_chain::add_squeeze_excite(r, b.c, spec, b.depthwise, 0);
  const Activation projected = row_chain::add_conv_node(r, b.c, spec.dtype, excited, one, 3, false, "project");
  const Activation sum = row_chain::add_residual(r, b.c, spec, projected, b.block_input, 0);
  const Activation last = row_chain::add_conv_node(r, b.c, spec.dtype, sum, three, 2, false, "last");
  b.c.graph.outputs.push_back(last.tensor);
  return b;
}

int64_t count_boundary_bytes(const ir::Graph& graph, int head_nodes) {
  int64_t bytes = 0;
  for (ir::TensorId t : find_head_boundary(graph, head_nodes)) bytes += graph.tensor(t).size_bytes();
  return bytes;
}

constexpr int kAfterColumnMean = 4;  // conv0, expand, dw, the mean over the columns

TEST(RecomputeBoundary, TheExpandedMapReadAfterTheMeanIsRecomputedFromTheBlocksInput) {
  const SeBlock b = make_se_block(3);
  ASSERT_TRUE(ir::verify_graph(b.c.graph));
  const ir::Graph staged = recompute_boundary(b.c.graph, kAfterColumnMean, 0);
  ASSERT_TRUE(ir::verify_graph(staged));
  // expand and dw copied after the head; the mean's output and the block's
  // input (read again by the Add) cross; the column mean, only the tail's
  // input, is not recomputed.
  ASSERT_EQ(staged.nodes.size(), b.c.graph.nodes.size() + 2);
  EXPECT_EQ(staged.nodes[4].name, "expand/recompute");
  EXPECT_EQ(staged.nodes[5].name, "dw/recompute");
  EXPECT_TRUE(staged.nodes[5].synthesized);
  const std::vector<ir::TensorId> boundary = find_head_boundary(staged, kAfterColumnMean);
  ASSERT_EQ(boundary.size(), 2u);
  EXPECT_EQ(boundary[0], b.block_input.tensor);
  EXPECT_EQ(staged.tensor(boundary[1]).name, "se0/mean2/y");
  EXPECT_LT(count_boundary_bytes(staged, kAfterColumnMean), count_boundary_bytes(b.c.graph, kAfterColumnMean));
  // Same outputs, bit-exact.
  const Result<std::vector<exec::TensorData>> expected = exec::run_reference(b.c.graph, b.c.inputs);
  const Result<std::vector<exec::TensorData>> actual = exec::run_reference(staged, b.c.inputs);
  ASSERT_TRUE(expected.has_value() && actual.has_value());
  EXPECT_EQ((*actual)[0].bytes, (*expected)[0].bytes);
}

// A later stage of NASNet-A ImageNet recomputed an operator an earlier stage
// had recomputed, and its copy's tensor took the earlier copy's name (tinyfit
// compile stopped: "tensor name ... is used by tensors 6 and 9"). The graph
// here holds a tensor named like the first copy: the copy is numbered.
TEST(RecomputeBoundary, ACopyWhoseNameTheGraphHoldsIsNumbered) {
  SeBlock b = make_se_block(3);
  ir::Tensor earlier = b.c.graph.tensor(b.expanded.tensor);
  earlier.name += "/recompute";
  b.c.graph.add_tensor(std::move(earlier));
  const ir::Graph staged = recompute_boundary(b.c.graph, kAfterColumnMean, 0);
  ASSERT_TRUE(ir::verify_graph(staged)) << ir::verify_graph(staged).error().message;
  ASSERT_EQ(staged.nodes.size(), b.c.graph.nodes.size() + 2);
  EXPECT_EQ(staged.nodes[4].name, "expand/recompute");
  EXPECT_EQ(staged.tensor(staged.nodes[4].outputs[0]).name, b.c.graph.tensor(b.expanded.tensor).name + "/recompute2");
}

TEST(RecomputeBoundary, NothingIsRecomputedWhenTheBoundaryFitsTheLimit) {
  const SeBlock b = make_se_block(4);
  const int64_t bytes = count_boundary_bytes(b.c.graph, kAfterColumnMean);
  EXPECT_EQ(recompute_boundary(b.c.graph, kAfterColumnMean, bytes).nodes.size(), b.c.graph.nodes.size());
  EXPECT_EQ(recompute_boundary(b.c.graph, kAfterColumnMean, bytes - 1).nodes.size(), b.c.graph.nodes.size() + 2);
}

TEST(RecomputeBoundary, TheBoundaryFitsExactlyWhenItsBytesAreWithinTheLimit) {
  // The cheap check before recompute_boundary copies the graph: at the
  // boundary's own bytes nothing is recomputed, one byte less recomputes.
  const SeBlock b = make_se_block(4);
  const int64_t bytes = count_boundary_bytes(b.c.graph, kAfterColumnMean);
  EXPECT_TRUE(boundary_fits(b.c.graph, kAfterColumnMean, bytes));
  EXPECT_FALSE(boundary_fits(b.c.graph, kAfterColumnMean, bytes - 1));
  EXPECT_FALSE(boundary_fits(b.c.graph, kAfterColumnMean, 0));
}

TEST(RecomputeBoundary, AStageCannotRecomputeFromAGraphInputTheCutDoesNotHandOn) {
  // Cut after conv0 and expand: the expanded map crosses (dw reads it) but
  // no head operator reads it again, and conv0's output, read by expand in
  // the head, would be recomputed from x, which does not cross.
  const SeBlock b = make_se_block(5);
  EXPECT_EQ(recompute_boundary(b.c.graph, 2, 0).nodes.size(), b.c.graph.nodes.size());
}

exec::TensorData crop(const exec::TensorData& whole, ir::Range rows) {
  ir::Shape shape = whole.shape;
  shape[1] = rows.size();
  exec::TensorData part = exec::TensorData::zeros(whole.dtype, shape);
  const size_t per_row = whole.bytes.size() / static_cast<size_t>(whole.shape[1]);
  std::copy_n(whole.bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(rows.begin) * per_row),
              part.bytes.size(), part.bytes.begin());
  return part;
}

// The stage after the mean: its bands read the mean's output whole (every
// row to every device), reduce its rows themselves, recompute the expanded
// map from their rows of the block's input and run on through the Add;
// gathered, the rest gives the model's output (int8 bit-exact).
TEST(RecomputeBoundary, TheNextStagesBandsReduceTheRowsOfTheWholeMean) {
  const SeBlock b = make_se_block(6);
  const ir::Graph staged = recompute_boundary(b.c.graph, kAfterColumnMean, 0);
  const ir::Graph tail = extract_tail(staged, kAfterColumnMean, "_tail");
  const int through_add = static_cast<int>(tail.nodes.size()) - 1;  // all but `last`
  ASSERT_TRUE(check_head(tail, through_add, 2));
  // The whole model's tensors crossing the first cut, from the reference.
  ir::Graph probe = staged;
  probe.outputs = find_head_boundary(staged, kAfterColumnMean);  // the tail's inputs, in order
  const Result<std::vector<exec::TensorData>> crossing = exec::run_reference(probe, b.c.inputs);
  ASSERT_TRUE(crossing.has_value());
  const std::vector<ir::TensorId> boundary = find_head_boundary(tail, through_add);
  ASSERT_EQ(boundary.size(), 1u);
  exec::TensorData gathered = exec::TensorData::zeros(tail.tensor(boundary[0]).dtype, tail.tensor(boundary[0]).shape);
  const size_t per_row = gathered.bytes.size() / static_cast<size_t>(gathered.shape[1]);
  for (int d = 0; d < 2; ++d) {
    const ir::Range share = split_extent(gathered.shape[1], d, 2);
    const Result<BandGraph> band = crop_rows(tail, through_add, {share}, "_band");
    ASSERT_TRUE(band.has_value()) << band.error().message;
    std::vector<exec::TensorData> inputs;
    for (size_t i = 0; i < band->model_inputs.size(); ++i) {
      const size_t k = static_cast<size_t>(
          std::find(tail.inputs.begin(), tail.inputs.end(), band->model_inputs[i]) - tail.inputs.begin());
      if (tail.tensor(tail.inputs[k]).shape[2] == 1) {
        EXPECT_EQ(band->input_rows[i], (ir::Range{0, tail.tensor(tail.inputs[k]).shape[1]}));  // the mean, whole
      }
      inputs.push_back(crop((*crossing)[k], band->input_rows[i]));
    }
    const Result<std::vector<exec::TensorData>> out = exec::run_reference(band->graph, inputs);
    ASSERT_TRUE(out.has_value()) << out.error().message;
    const ir::Range rows = band->output_rows[0];
    const exec::TensorData mine = crop((*out)[0], {share.begin - rows.begin, share.end - rows.begin});
    std::copy(mine.bytes.begin(), mine.bytes.end(),
              gathered.bytes.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(share.begin) * per_row));
  }
  const Result<std::vector<exec::TensorData>> actual = exec::run_reference(extract_tail(tail, through_add, "_rest"),
                                                                           {gathered});
  const Result<std::vector<exec::TensorData>> expected = exec::run_reference(b.c.graph, b.c.inputs);
  ASSERT_TRUE(actual.has_value() && expected.has_value());
  EXPECT_EQ((*actual)[0].bytes, (*expected)[0].bytes);
}

}  // namespace
}  // namespace tinyfit::devices
