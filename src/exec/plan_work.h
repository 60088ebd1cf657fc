// The work of one inference of a plan for the latency model (cost/): every
// runtime kernel call the generated code makes, found by preparing each plan
// call's binding and recording the calls its emitter would write (so the
// model sees exactly what codegen emits, several runtime calls for a Concat,
// the extra clamp of a fused activation, ...), with its features computed
// from the views of each loop iteration (a fused call: the sum of its nodes'
// whole features); plus the run function's own counts.
// Lives beside the bindings because it is the bindings that know which
// kernels a call makes.
#pragma once

#include <map>
#include <span>

#include "cost/plan_work.h"
#include "exec/kernel_call.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::exec {

// Walks the plan's call instances (plan/plan_walk.h: loop nests, every
// iteration with its chunks), so a loop's calls are counted once per
// iteration with that iteration's view extents and origins.
// Requires: plan lowered from graph (verify_plan holds).
// Guarantees: the same PlanWork for the same plan. A call no kernel or
// emitter serves fails as prepare_kernel / emit does (exit 2, "not built yet").
Result<cost::PlanWork> count_plan_work(const ir::Graph& graph, const plan::Plan& plan);

// The same work split by plan call (keyed by the KernelCall's address in
// `plan`; a call in a loop sums its iterations), without the run function's
// counts: what one call costs, for choices made per call (primitive selection).
Result<std::map<const plan::KernelCall*, cost::PlanWork>> count_call_work(const ir::Graph& graph,
                                                                          const plan::Plan& plan);

// The work of one prepared kernel run once, outside any loop, on views fixed
// at compile time (a multi-device part call, codegen/device_steps.h
// PartCall): its runtime calls with the features of `inputs` / `outputs`
// (KernelCall order), without the run function's counts.
// Requires: `kernel` prepared for `call` (of `graph`); views as its binding
// takes them.
Result<cost::PlanWork> count_kernel_work(const ir::Graph& graph, const plan::KernelCall& call,
                                         const PreparedKernel& kernel, std::span<const plan::ViewInstance> inputs,
                                         std::span<const plan::ViewInstance> outputs);

}  // namespace tinyfit::exec
