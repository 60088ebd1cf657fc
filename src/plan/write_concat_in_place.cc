#include "plan/write_concat_in_place.h"

#include <algorithm>
#include <compare>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/concat_in_place.h"
#include "plan/plan_memory.h"
#include "plan/plan_walk.h"
#include "plan/remove_buffers.h"

namespace tinyfit::plan {
namespace {

// One use of a buffer by a plain step's view.
struct PlainUse {
  int step = 0;
  bool is_output = false;
};

struct ConcatBufferUses {
  std::vector<std::vector<PlainUse>> plain;  // per buffer, in program order
  std::vector<bool> other;                   // per buffer: a loop, a workspace or an overlap uses it
};

ConcatBufferUses find_concat_buffer_uses(const Plan& plan) {
  ConcatBufferUses uses;
  uses.plain.resize(plan.buffers.size());
  uses.other.assign(plan.buffers.size(), false);
  auto mark = [&](BufferId b) { uses.other[static_cast<size_t>(b)] = true; };
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const Step& step = plan.steps[s];
    if (step.is_loop()) {
      const Status walked = walk_calls(step.loop().body, [&](const KernelCall& call, LoopNest) -> Status {
        for (const auto* views : {&call.inputs, &call.outputs}) {
          for (const View& view : *views) mark(view.buffer);
        }
        return {};
      });
      TINYFIT_CHECK(walked.has_value()) << walked.error().message;
      for (const LoopOverlap& overlap : step.loop().overlaps) {
        mark(overlap.input);
        mark(overlap.output);
      }
      continue;
    }
    const KernelCall& call = step.call();
    for (const View& view : call.inputs) uses.plain[static_cast<size_t>(view.buffer)].push_back({static_cast<int>(s), false});
    for (const View& view : call.outputs) uses.plain[static_cast<size_t>(view.buffer)].push_back({static_cast<int>(s), true});
    if (call.workspace >= 0) mark(call.workspace);
  }
  for (BufferId b : plan.inputs) mark(b);
  for (BufferId b : plan.outputs) mark(b);
  return uses;
}

bool is_whole_dense(const Plan& plan, const View& view) {
  if (!view.sweeps.empty() || view.offset_elements != 0) return false;
  int64_t next = 1;
  for (int a = view.rank() - 1; a >= 0; --a) {
    const auto i = static_cast<size_t>(a);
    if (view.strides[i] != next) return false;
    next *= view.shape[i];
  }
  const PlanBuffer& buffer = plan.buffers.at(static_cast<size_t>(view.buffer));
  return buffer.bytes == next * static_cast<int64_t>(ir::dtype_size_bytes(buffer.dtype));
}

// A Concat input that may be written in place: its index among the Concat's
// inputs, its writer's step and the writer's output index.
struct Candidate {
  size_t input = 0;
  int writer = 0;
  size_t output = 0;
  int64_t axis_offset = 0;  // where its slice starts on the Concat's axis
};

// Whether `step` is a Concat this pass may serve: a plain step computing
// the whole output (the rest of the rule is the graph's,
// analysis/concat_in_place.h).
bool is_plain_concat(const ir::Graph& graph, const Step& step) {
  if (step.is_loop()) return false;
  const KernelCall& call = step.call();
  if (call.node < 0 || call.mode != CallMode::kWhole || !call.fused.empty() || call.overlap) return false;
  const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
  return node.op == ir::OpType::kConcat && call.outputs.size() == 1 && call.outputs[0].sweeps.empty() &&
         call.inputs.size() == node.inputs.size();
}

std::vector<Candidate> find_candidates(const ir::Graph& graph, const Plan& plan, const ConcatBufferUses& uses,
                                       int concat_step) {
  const KernelCall& concat = plan.steps.at(static_cast<size_t>(concat_step)).call();
  const ir::Node& node = graph.nodes.at(static_cast<size_t>(concat.node));
  const auto axis = static_cast<size_t>(node.attr<ir::ConcatAttrs>().axis);
  std::vector<Candidate> candidates;
  int64_t axis_offset = 0;
  for (size_t i = 0; i < concat.inputs.size(); ++i) {
    const ir::Tensor& x = graph.input_tensor(node, i);
    const View& view = concat.inputs[i];
    const auto b = static_cast<size_t>(view.buffer);
    const int64_t begin = axis_offset;
    axis_offset += x.shape.at(axis);
    const std::vector<PlainUse>& plain = uses.plain[b];
    if (!analysis::may_write_concat_input_in_place(graph, node, i) || plan.buffers[b].role != BufferRole::kActivation ||
        uses.other[b] || !is_whole_dense(plan, view) || plain.size() != 2 || !plain[0].is_output ||
        plain[1].is_output || plain[1].step != concat_step || plain[0].step >= concat_step) {
      continue;
    }
    const Step& step = plan.steps.at(static_cast<size_t>(plain[0].step));
    if (step.is_loop()) continue;
    const KernelCall& writer = step.call();
    if (writer.node < 0 || writer.mode != CallMode::kWhole || !writer.fused.empty() || writer.overlap) continue;
    std::optional<size_t> output;
    for (size_t o = 0; o < writer.outputs.size(); ++o) {
      if (writer.outputs[o].buffer == view.buffer) output = o;
    }
    if (!output || !is_whole_dense(plan, writer.outputs[*output]) || writer.outputs[*output].shape != view.shape) {
      continue;
    }
    candidates.push_back({i, plain[0].step, *output, begin});
  }
  return candidates;
}

// The plan with `chosen` written in place into the Concat at `concat_step`,
// the buffers they had removed.
Plan apply_candidates(const ir::Graph& graph, Plan plan, int concat_step, std::span<const Candidate> candidates,
                      std::span<const size_t> chosen) {
  KernelCall& concat = std::get<KernelCall>(plan.steps.at(static_cast<size_t>(concat_step)).what);
  const ir::Node& node = graph.nodes.at(static_cast<size_t>(concat.node));
  const auto axis = static_cast<size_t>(node.attr<ir::ConcatAttrs>().axis);
  const View out = concat.outputs[0];
  std::vector<bool> removed(plan.buffers.size(), false);
  for (size_t index : chosen) {
    const Candidate& c = candidates[index];
    View slice = out;
    slice.offset_elements = out.offset_elements + c.axis_offset * out.strides.at(axis);
    slice.shape = concat.inputs[c.input].shape;
    removed[static_cast<size_t>(concat.inputs[c.input].buffer)] = true;
    concat.inputs[c.input] = slice;
    std::get<KernelCall>(plan.steps.at(static_cast<size_t>(c.writer)).what).outputs[c.output] = slice;
  }
  remove_buffers(plan, removed);
  return plan;
}

// The plan's ConcatInPlaceScore, its local peak over the plain steps in
// [first_step, last_step] (the Concat's and its candidates' writers').
analysis::ConcatInPlaceScore score(const Plan& plan, int first_step, int last_step) {
  const PlanMemory memory = compute_plan_memory(plan);
  analysis::ConcatInPlaceScore s{memory.peak_bytes, 0, 0};
  for (size_t p = 0; p < memory.positions.size(); ++p) {
    const PlanPosition& position = memory.positions[p];
    s.sum_bytes += memory.live_bytes[p];
    if (position.body_path.empty() && position.step >= first_step && position.step <= last_step) {
      s.local_peak_bytes = std::max(s.local_peak_bytes, memory.live_bytes[p]);
    }
  }
  return s;
}

}  // namespace

ConcatInPlaceResult write_concat_in_place(const ir::Graph& graph, Plan plan) {
  ConcatInPlaceResult result;
  const int64_t peak_before = compute_plan_memory(plan).peak_bytes;
  int concats = 0;
  ConcatBufferUses uses = find_concat_buffer_uses(plan);  // of `plan`, renewed when a Concat changes it
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (!is_plain_concat(graph, plan.steps[s])) continue;
    const int concat_step = static_cast<int>(s);
    const std::vector<Candidate> candidates = find_candidates(graph, plan, uses, concat_step);
    if (candidates.empty()) continue;
    std::vector<int> writer_steps;
    for (const Candidate& c : candidates) writer_steps.push_back(c.writer);
    const int first_step = *std::min_element(writer_steps.begin(), writer_steps.end());
    const std::vector<size_t> chosen =
        analysis::choose_concat_inputs_in_place(writer_steps, [&](std::span<const size_t> trial) {
          if (trial.empty()) return score(plan, first_step, concat_step);
          return score(apply_candidates(graph, plan, concat_step, candidates, trial), first_step, concat_step);
        });
    if (chosen.empty()) continue;
    plan = apply_candidates(graph, std::move(plan), concat_step, candidates, chosen);
    uses = find_concat_buffer_uses(plan);
    result.inputs_in_place += static_cast<int>(chosen.size());
    ++concats;
  }
  if (result.inputs_in_place > 0) {
    plan.techniques.push_back("concatinplace");
    result.note = std::to_string(result.inputs_in_place) + " Concat inputs written in place in " +
                  std::to_string(concats) + " Concats (peak " + std::to_string(peak_before) + " -> " +
                  std::to_string(compute_plan_memory(plan).peak_bytes) + " bytes)";
  }
  result.plan = std::move(plan);
  return result;
}

}  // namespace tinyfit::plan
