#include "plan/lower_row_loop_overlap.h"

#include <algorithm>
#include <limits>
#include <set>

#include "plan/plan_walk.h"

namespace tinyfit::plan {
namespace {

bool is_zero_bound(const Bound& bound) { return bound == make_constant_bound(0); }

template <typename Visit>
void visit_views(const KernelCall& call, Visit&& visit) {
  for (const View& view : call.inputs) visit(view, false);
  for (const View& view : call.outputs) visit(view, true);
}

// Calls visit(call) for every call in `steps`, nested bodies included.
template <typename Visit>
void for_each_call(const std::vector<Step>& steps, Visit&& visit) {
  const Status walked = walk_calls(steps, [&](const KernelCall& call, LoopNest) -> Status {
    visit(call);
    return {};
  });
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
}

int64_t floor_to(int64_t value, int64_t alignment) {
  const int64_t q = value / alignment;
  return (q * alignment > value ? q - 1 : q) * alignment;
}

// Bytes the output at `offset` from the input shares with it.
int64_t count_shared_bytes(int64_t input_bytes, int64_t output_bytes, int64_t offset) {
  return std::max<int64_t>(0, std::min(input_bytes, offset + output_bytes) - std::max<int64_t>(0, offset));
}

struct LoopBuffers {
  std::set<BufferId> inputs;   // consumed inputs the loop reads by whole row views only
  std::set<BufferId> outputs;  // outputs it writes first, by whole row views only
};

LoopBuffers find_candidates(const Plan& plan, size_t loop_step, const std::set<BufferId>& anchored) {
  const Loop& loop = plan.steps[loop_step].loop();
  std::set<BufferId> read, written, bad_input, bad_output, before, after;
  for_each_call(loop.body, [&](const KernelCall& call) {
    if (call.workspace >= 0) {
      bad_input.insert(call.workspace);
      bad_output.insert(call.workspace);
    }
    visit_views(call, [&](const View& view, bool is_output) {
      (is_output ? written : read).insert(view.buffer);
      if (is_output) bad_input.insert(view.buffer);  // the loop writes it
      if (!is_whole_row_view(view)) (is_output ? bad_output : bad_input).insert(view.buffer);
    });
  });
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (s == loop_step) continue;
    std::vector<Step> one{plan.steps[s]};
    for_each_call(one, [&](const KernelCall& call) {
      for (BufferId b : read) {
        if (s > loop_step && call.uses_buffer(b)) after.insert(b);
      }
      for (BufferId b : written) {
        if (s < loop_step && call.uses_buffer(b)) before.insert(b);
      }
    });
  }
  LoopBuffers found;
  const std::set<BufferId> model_inputs(plan.inputs.begin(), plan.inputs.end());
  const std::set<BufferId> model_outputs(plan.outputs.begin(), plan.outputs.end());
  for (BufferId b : read) {
    if (!bad_input.contains(b) && !after.contains(b) && !model_outputs.contains(b)) found.inputs.insert(b);
  }
  for (BufferId b : written) {
    if (!bad_output.contains(b) && !before.contains(b) && !model_inputs.contains(b) && !anchored.contains(b)) {
      found.outputs.insert(b);
    }
  }
  return found;
}

}  // namespace

bool is_whole_row_view(const View& view) {
  return view.rank() == 4 && view.shape[0] == 1 && view.offset_elements == 0 &&
         view.strides == ir::compute_strides(view.shape) && view.sweeps.size() == 1 && view.sweeps[0].loop == 0 &&
         view.sweeps[0].axis == 1 && is_zero_bound(view.sweeps[0].base);
}

std::optional<int64_t> compute_row_loop_overlap_limit(const Plan& plan, const Loop& loop, BufferId input,
                                                      BufferId output) {
  std::vector<const KernelCall*> body;
  for (const Step& step : loop.body) {
    TINYFIT_CHECK(!step.is_loop()) << "a row loop overlap in a loop with nested loops";
    body.push_back(&step.call());
  }
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  int64_t first_read_after = kNone;  // least input byte read at or after the current call
  std::optional<int64_t> limit;
  for (int64_t i = count_iterations(loop); i-- > 0;) {
    const LoopChunk nest[] = {LoopChunk{&loop, i, chunk_of_iteration(loop, i)}};
    for (size_t p = body.size(); p-- > 0;) {
      for (const View& view : body[p]->inputs) {
        if (view.buffer != input) continue;
        const ByteSpan span = span_view_bytes(plan, resolve_view(view, nest));
        if (span.end > span.first) first_read_after = std::min(first_read_after, span.first);
      }
      for (const View& view : body[p]->outputs) {
        if (view.buffer != output) continue;
        const ByteSpan span = span_view_bytes(plan, resolve_view(view, nest));
        if (span.end <= span.first || first_read_after == kNone) continue;
        const int64_t bound = first_read_after - span.end;
        limit = limit ? std::min(*limit, bound) : bound;
      }
    }
  }
  return limit;
}

RowLoopOverlapResult apply_row_loop_overlaps(Plan plan, int64_t alignment, bool at_limit) {
  RowLoopOverlapResult result;
  std::set<BufferId> anchored;  // outputs already placed by a declared overlap
  for_each_call(plan.steps, [&](const KernelCall& call) {
    if (call.overlap && !call.outputs.empty()) anchored.insert(call.outputs[0].buffer);
  });
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    if (!plan.steps[s].is_loop()) continue;
    const Loop& loop = plan.steps[s].loop();
    if (loop.axis != LoopAxis::kRows || !loop.overlaps.empty()) continue;
    if (std::any_of(loop.body.begin(), loop.body.end(), [](const Step& step) { return step.is_loop(); })) continue;
    const LoopBuffers candidates = find_candidates(plan, s, anchored);
    std::optional<LoopOverlap> best;
    int64_t best_shared = 0;
    for (BufferId in : candidates.inputs) {
      for (BufferId out : candidates.outputs) {
        if (in == out) continue;
        const std::optional<int64_t> limit = compute_row_loop_overlap_limit(plan, loop, in, out);
        if (!limit) continue;
        // The pair shares the most bytes, min(input, output), at every
        // offset between 0 and input - output; 0 is always among them, and
        // starting both at one address leaves placement the most freedom
        // (an output placed past the input's start cannot sit at the arena's
        // bottom after the input dies). Below 0 only when the limit is.
        const int64_t aligned =
            floor_to(*limit, std::max<int64_t>(alignment, plan.buffers[static_cast<size_t>(out)].alignment));
        const int64_t offset = at_limit ? aligned : std::min<int64_t>(0, aligned);
        const int64_t shared =
            count_shared_bytes(plan.buffers[static_cast<size_t>(in)].bytes, plan.buffers[static_cast<size_t>(out)].bytes, offset);
        if (shared > best_shared) {
          best_shared = shared;
          best = LoopOverlap{in, out, offset};
        }
      }
    }
    if (!best) continue;
    std::get<Loop>(plan.steps[s].what).overlaps.push_back(*best);
    anchored.insert(best->output);
    ++result.overlaps;
    result.shared_bytes += best_shared;
  }
  if (result.overlaps > 0) {
    plan.techniques.push_back("rowoverlap");
    result.note = std::to_string(result.overlaps) + " row loop" + (result.overlaps == 1 ? "" : "s") +
                  " write their output over their consumed input (" + std::to_string(result.shared_bytes) +
                  " bytes shared)";
  }
  result.plan = std::move(plan);
  return result;
}

}  // namespace tinyfit::plan
