// What an operator converter sees, and the helpers every converter shares.
// One converter per TFLite builtin (tflite_ops_compute.cc, tflite_ops_data.cc);
// the table from builtin code to converter is tflite_ops.cc.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "import/tflite_schema.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::import {

struct TfliteOpContext {
  const tflite::Operator& op;
  ir::Graph& graph;
  std::string node_name;  // unique in the graph
  // Operator inputs and outputs as ir tensor ids (ir id == TFLite tensor
  // index); kNoTensor for an absent optional input. Indices already validated.
  std::vector<ir::TensorId> inputs;
  std::vector<ir::TensorId> outputs;
  // Names of folded operators (DEQUANTIZE of a constant) keyed by the tensor
  // they produced: the first node that reads it lists them in source_nodes,
  // before its own name, so the schedule still names every operator of the
  // input model.
  std::map<ir::TensorId, std::vector<std::string>>& folded_names;
  // Every node name taken: all operators' (chosen before conversion) and the
  // synthesized helpers' so far.
  std::set<std::string>& node_names;

  const ir::Tensor& input(size_t i) const { return graph.tensor(inputs.at(i)); }
  const ir::Tensor& output(size_t i) const { return graph.tensor(outputs.at(i)); }
  bool has_input(size_t i) const { return i < inputs.size() && inputs[i] != ir::kNoTensor; }
};

using TfliteOpConverter = Status (*)(TfliteOpContext& ctx);

// Arity check: inputs in [min_inputs, max_inputs] (trailing absent optional
// inputs count as absent), exactly `outputs` outputs; required inputs present.
Status expect_arity(const TfliteOpContext& ctx, size_t min_inputs, size_t max_inputs, size_t outputs);

Result<ir::FusedActivation> convert_fused_activation(tflite::ActivationFunctionType activation);

// Values of a constant int32/int64 input (shapes, axes, paddings).
Result<std::vector<int64_t>> read_int_constant(const TfliteOpContext& ctx, size_t input, std::string_view what);
// A scalar or single-element constant, dequantized when quantized.
Result<float> read_scalar_constant(const TfliteOpContext& ctx, size_t input, std::string_view what);

// Normalises a possibly negative axis against `rank`.
Result<int> normalize_axis(int64_t axis, size_t rank);

// Hybrid models (float activations, int8 weights): returns a float32 copy of
// the quantized constant `weights`, or `weights` itself when nothing is to do.
Result<ir::TensorId> dequantize_hybrid_weights(TfliteOpContext& ctx, ir::TensorId weights);

// Appends the node after checking its activation dtypes (f32, i8, u8) and
// attaches pending folded names of its inputs.
Status add_tflite_node(TfliteOpContext& ctx, ir::Node node);

// A node named ctx.node_name reading `inputs` and writing ctx.outputs: the
// operator itself, listing its own name in source_nodes.
ir::Node make_tflite_node(const TfliteOpContext& ctx, ir::OpType op, std::vector<ir::TensorId> inputs,
                          ir::OpAttrs attrs = {});
// A synthesized helper node for the current operator (a Reshape behind it),
// named "<node>/<role>" (made unique), writing ctx.outputs.
ir::Node make_tflite_helper_node(TfliteOpContext& ctx, ir::OpType op, std::vector<ir::TensorId> inputs,
                                 const std::string& role);

// Adds an activation tensor shaped like `like` but with `shape` (for a helper
// Reshape behind an operator whose TFLite output drops or keeps axes that our
// operator does not).
ir::TensorId add_intermediate_tensor(TfliteOpContext& ctx, const ir::Tensor& like, ir::Shape shape,
                                     const std::string& suffix);

}  // namespace tinyfit::import
