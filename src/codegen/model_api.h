// The C API of an emitted model (issue 10 §3): zero-copy access to the model's
// inputs and outputs where the plan placed them in the arena, an invoke
// function, and the copying run() built on them. The header, the source and
// the emitted README all take their declarations from here, so the three
// never disagree.
//
//   <in_t>* <prefix>_input(int index);          pointer into the arena
//   const <out_t>* <prefix>_output(int index);  pointer into the arena
//   int <prefix>_invoke(void);                   one inference in the arena
//   int <prefix>_run(const <in_t>* input0, ..., <out_t>* output0, ...);
//
// <in_t> is the inputs' element type when they all share it (every model we
// know of: one input), void otherwise; the same for <out_t>.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/device_steps.h"
#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::codegen {

struct ModelIoTensor {
  size_t index = 0;            // the model's input / output number: the accessors' index
  std::string macro;           // "TINYFIT_KWS_INPUT0": prefix of its #defines
  std::string parameter;       // "input0": its parameter of run()
  const ir::Tensor* tensor = nullptr;
  int64_t arena_offset = 0;    // where the plan placed its buffer
};

struct ModelApi {
  std::string prefix;                  // "tinyfit_kws"
  std::vector<ModelIoTensor> inputs;   // graph order
  std::vector<ModelIoTensor> outputs;  // graph order
  std::string input_type;              // "int8_t", or "void" for mixed types
  std::string output_type;

  std::string input_function() const { return prefix + "_input"; }
  std::string output_function() const { return prefix + "_output"; }
  std::string invoke_function() const { return prefix + "_invoke"; }
  std::string run_function() const { return prefix + "_run"; }
};

// What: each graph input and output with the arena offset of its plan buffer.
// Requires: plan placed and verify_plan(graph, plan) holds (it checks that
// every model input and output is a whole buffer holding the whole tensor,
// so the tensor starts at its buffer's offset: an in-place consumer or an
// alias (Reshape) shares that buffer and that start).
// A plan of one device of several (codegen/emit_devices.h) may hold only some
// of them: an entry of -1 in plan.inputs / plan.outputs is left out, and the
// others keep their graph index (ModelIoTensor::index).
// Guarantees: ModelApi::inputs/outputs in graph order; offsets inside the arena.
ModelApi describe_model_api(const ir::Graph& graph, const plan::Plan& plan, const std::string& prefix);

// The same for a device that runs several plans in one arena (emit_model.h
// EmitOptions::more_plans): the inputs and outputs each plan holds, the
// plans in order. Requires: no index held by two plans (checked).
ModelApi describe_device_api(const std::vector<GraphPlan>& plans, const std::string& prefix);

// The declarations, one per line, ending in ';':
// "int8_t* tinyfit_kws_input(int index);" etc.
std::string declare_input_function(const ModelApi& api);
std::string declare_output_function(const ModelApi& api);
std::string declare_invoke_function(const ModelApi& api);
std::string declare_run_function(const ModelApi& api);

// model.c's definitions of the four functions (the arena is `arena_symbol`;
// invoke's statements are `invoke_body`, which declares what it uses).
std::string define_api_functions(const ModelApi& api, const std::string& arena_symbol,
                                 const std::string& invoke_body);

}  // namespace tinyfit::codegen
