// The C emitter (issue 5): a placed, verified Plan becomes model.h / model.c
// with one static arena of exactly plan.arena_bytes, weights and kernel
// parameters as const data (flash), and the runtime kernels it calls.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/device_steps.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::codegen {

struct EmitOptions {
  // Prefix of every public symbol (tinyfit_<name>_run); empty: from the
  // graph's name.
  std::string name;
  // One device of a multi-device model (emit_devices.h): its number, the
  // device count and what it runs (device_steps.h: its plan's steps, parts
  // of operators, link transfers, local copies), in order. device -1: a
  // single-device model, whose invoke runs plan.steps.
  int device = -1;
  int device_count = 1;
  std::vector<DeviceStep> device_steps;
  // The device's other plans (PlanStepRef::plan 1..), placed in the same
  // arena: it is the largest of them all. Their model inputs and outputs
  // (entries >= 0) join the API beside the first plan's; no index twice.
  std::vector<GraphPlan> more_plans;
};

struct EmittedFile {
  std::string path;  // relative to the output directory
  std::string text;
};

struct EmittedModel {
  std::string prefix;                // "tinyfit_mobilenetv2_224": symbols and the CMake library target
  // model.h, model.c, README.md, CMakeLists.txt, then the runtime files, sorted
  std::vector<EmittedFile> files;
  std::vector<std::string> kernels;  // runtime functions called, sorted, unique
  int64_t arena_bytes = 0;
  int64_t constant_bytes = 0;        // bytes of const arrays (weights, parameters) in model.c
  std::vector<size_t> input_indices;   // the model inputs its API gives (<prefix>_input(i)), by graph index
  std::vector<size_t> output_indices;  // and outputs: all of them, except on a device of several
  int64_t link_send_bytes = 0;       // bytes its invoke sends through the link (multi-device)
  int64_t link_receive_bytes = 0;    // and receives
};

// What: emits the plan as C99 with a zero-copy API (model_api.h):
//   <in_t>* <prefix>_input(int i);  const <out_t>* <prefix>_output(int i);
//   int <prefix>_invoke(void);
// the inputs and outputs are pointers to their tensors inside the arena
// (dense NHWC, the IR tensor's dtype), so invoke copies nothing; and the
// copying convenience int <prefix>_run(const <in_t>* input0, ..., <out_t>*
// output0, ...) built on them. model.h also defines each tensor's shape,
// bytes, scale and zero point, and <PREFIX>_ARENA_BYTES; CMakeLists.txt makes
// the folder the static library <prefix> (emit_build_files.h).
// Requires: plan placed (arena_bytes > 0) and verify_plan(graph, plan) holds.
// Guarantees: the same graph and plan give byte-identical files; the code is
// C99 without malloc or stdio, and computes what exec::execute_plan computes
// (the same runtime kernels with the same parameters, the inputs and outputs
// at the offsets of their plan buffers). A kernel that cannot emit yet fails
// with exit 2.
// A device of a multi-device model (options.device >= 0): plan.inputs and
// plan.outputs entries of -1 are model inputs and outputs other devices hold,
// left out of the API (the others keep their model index: input0 is the
// model's input 0 wherever it lives); invoke runs options.device_steps and
// returns the link's status when a transfer fails; model.c includes
// tinyfit_link.h (written beside model.h) and model.h says what the device
// sends and receives. With options.more_plans, a PlanStepRef runs a step of
// the plan it names, on that plan's graph and buffers.
Result<EmittedModel> emit_c_model(const ir::Graph& graph, const plan::Plan& plan, const EmitOptions& options);

// Writes every file under `directory` (created if missing). Errors name the path.
Status write_emitted_model(const EmittedModel& model, const std::string& directory);

}  // namespace tinyfit::codegen
