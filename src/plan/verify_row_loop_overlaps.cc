#include "plan/verify_row_loop_overlaps.h"

#include <algorithm>
#include <set>
#include <string>

#include "plan/plan_walk.h"

namespace tinyfit::plan {
namespace {

tl::unexpected<Diag> fail_loop(const Loop& loop, const std::string& problem) {
  return fail("plan: loop '" + loop.name + "' " + problem, ExitCode::kInternal);
}

const std::string& name_of(const Plan& plan, BufferId b) { return plan.buffers[static_cast<size_t>(b)].name; }

bool any_call(const std::vector<Step>& steps, const std::function<bool(const KernelCall&)>& test) {
  bool found = false;
  const Status walked = walk_calls(steps, [&](const KernelCall& call, LoopNest) -> Status {
    found = found || test(call);
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  return found;
}

// Every call instance of `loop` (a step of the plan) in execution order.
Status walk_loop_instances(const Loop& loop,
                           const std::function<Status(const KernelCall&, std::span<const LoopChunk>)>& visit) {
  InstanceVisitor visitor;
  visitor.call = visit;
  // Walk a plan made of this loop alone (its views only name loop 0).
  std::vector<Step> steps;
  steps.push_back(Step{loop});
  return walk_call_instances(steps, visitor);
}

}  // namespace

Status replay_row_loop_overlap(const Plan& plan, const Loop& loop, const LoopOverlap& overlap) {
  const int64_t input_bytes = plan.buffers.at(static_cast<size_t>(overlap.input)).bytes;
  // Per input byte: the time of its last read (-1: never read in the loop).
  std::vector<int64_t> last_read(static_cast<size_t>(input_bytes), -1);
  int64_t time = 0;
  TINYFIT_RETURN_IF_ERROR(walk_loop_instances(loop, [&](const KernelCall& call, std::span<const LoopChunk> nest) -> Status {
    for (const View& view : call.inputs) {
      if (view.buffer != overlap.input) continue;
      const ByteSpan span = span_view_bytes(plan, resolve_view(view, nest));
      for (int64_t b = std::max<int64_t>(0, span.first); b < std::min(span.end, input_bytes); ++b) {
        last_read[static_cast<size_t>(b)] = time;
      }
    }
    ++time;
    return {};
  }));
  time = 0;
  return walk_loop_instances(loop, [&](const KernelCall& call, std::span<const LoopChunk> nest) -> Status {
    for (const View& view : call.outputs) {
      if (view.buffer != overlap.output) continue;
      const ByteSpan span = span_view_bytes(plan, resolve_view(view, nest));
      const int64_t from = std::max<int64_t>(0, span.first + overlap.offset_bytes);
      const int64_t to = std::min(span.end + overlap.offset_bytes, input_bytes);
      for (int64_t b = from; b < to; ++b) {
        if (last_read[static_cast<size_t>(b)] >= time) {
          return fail_loop(loop, "writes '" + name_of(plan, overlap.output) + "' " + std::to_string(overlap.offset_bytes) +
                                     " bytes from '" + name_of(plan, overlap.input) + "' over its byte " + std::to_string(b) +
                                     ", which call " + std::to_string(last_read[static_cast<size_t>(b)]) +
                                     " of the loop reads, at or after the write (call " + std::to_string(time) + ")");
        }
      }
    }
    ++time;
    return {};
  });
}

Status verify_row_loop_overlaps(const Plan& plan) {
  std::set<BufferId> placed;  // outputs of declared overlaps
  const Status calls = walk_calls(plan.steps, [&](const KernelCall& call, LoopNest) -> Status {
    if (call.overlap && !call.outputs.empty()) placed.insert(call.outputs[0].buffer);
    return {};
  });
  TINYFIT_CHECK(calls.has_value()) << calls.error().message;
  const std::set<BufferId> model_inputs(plan.inputs.begin(), plan.inputs.end());
  const std::set<BufferId> model_outputs(plan.outputs.begin(), plan.outputs.end());
  // Nested loops may declare none.
  const std::function<Status(const std::vector<Step>&)> check_nested = [&](const std::vector<Step>& steps) -> Status {
    for (const Step& step : steps) {
      if (!step.is_loop()) continue;
      if (!step.loop().overlaps.empty()) return fail_loop(step.loop(), "declares an overlap inside a loop");
      TINYFIT_RETURN_IF_ERROR(check_nested(step.loop().body));
    }
    return {};
  };
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (!plan.steps[s].is_loop()) continue;
    const Loop& loop = plan.steps[s].loop();
    TINYFIT_RETURN_IF_ERROR(check_nested(loop.body));
    if (loop.overlaps.empty()) continue;
    if (loop.axis != LoopAxis::kRows) return fail_loop(loop, "declares an overlap but walks " + std::string(loop_axis_name(loop.axis)));
    for (const Step& step : loop.body) {
      if (step.is_loop()) return fail_loop(loop, "declares an overlap around a nested loop");
    }
    const std::vector<Step> before(plan.steps.begin(), plan.steps.begin() + static_cast<std::ptrdiff_t>(s));
    const std::vector<Step> after(plan.steps.begin() + static_cast<std::ptrdiff_t>(s) + 1, plan.steps.end());
    for (const LoopOverlap& overlap : loop.overlaps) {
      const auto in_range = [&](BufferId b) { return b >= 0 && static_cast<size_t>(b) < plan.buffers.size(); };
      if (!in_range(overlap.input) || !in_range(overlap.output) || overlap.input == overlap.output) {
        return fail_loop(loop, "declares an overlap of buffers " + std::to_string(overlap.input) + " and " +
                                   std::to_string(overlap.output));
      }
      if (!placed.insert(overlap.output).second) {
        return fail_loop(loop, "declares an overlap placing '" + name_of(plan, overlap.output) +
                                   "', which another declared overlap places");
      }
      const BufferId in = overlap.input, out = overlap.output;
      if (model_outputs.contains(in)) return fail_loop(loop, "overwrites model output '" + name_of(plan, in) + "'");
      if (model_inputs.contains(out)) return fail_loop(loop, "writes model input '" + name_of(plan, out) + "' over another buffer");
      if (any_call(loop.body, [&](const KernelCall& c) {
            return std::any_of(c.outputs.begin(), c.outputs.end(), [&](const View& v) { return v.buffer == in; });
          })) {
        return fail_loop(loop, "overwrites '" + name_of(plan, in) + "', which it also writes");
      }
      // The replay sees the writes of views only.
      if (any_call(loop.body, [&](const KernelCall& c) { return c.workspace == in || c.workspace == out; })) {
        return fail_loop(loop, "declares an overlap of '" + name_of(plan, in) + "' and '" + name_of(plan, out) +
                                   "', one of them a call's workspace");
      }
      if (any_call(after, [&](const KernelCall& c) { return c.uses_buffer(in); })) {
        return fail_loop(loop, "overwrites '" + name_of(plan, in) + "', which a later call still uses");
      }
      if (any_call(before, [&](const KernelCall& c) { return c.uses_buffer(out); })) {
        return fail_loop(loop, "writes '" + name_of(plan, out) + "' over '" + name_of(plan, in) +
                                   "', but an earlier call already uses it");
      }
      TINYFIT_RETURN_IF_ERROR(replay_row_loop_overlap(plan, loop, overlap));
    }
  }
  return {};
}

}  // namespace tinyfit::plan
