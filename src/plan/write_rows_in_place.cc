#include "plan/write_rows_in_place.h"

#include <algorithm>
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "ir/op_decl.h"
#include "plan/plan_memory.h"
#include "plan/remove_buffers.h"

namespace tinyfit::plan {
namespace {

// One use of a buffer by a call directly in a loop body.
struct BodyUse {
  size_t step = 0;  // position in the body
  bool is_output = false;
};

struct BufferUses {
  std::vector<const std::vector<Step>*> body;  // per buffer: the one body using it, or nullptr
  std::vector<bool> elsewhere;  // per buffer: a plain step, a workspace, an overlap, a second body or the caller
  std::vector<std::vector<BodyUse>> uses;  // per buffer, in body order
};

// A loop body and the loops around it, outermost first.
struct Body {
  std::vector<Step>* steps = nullptr;
  std::vector<const Loop*> nest;
};

void record_body(Loop& loop, std::vector<const Loop*> nest, BufferUses& found, std::vector<Body>& bodies) {
  nest.push_back(&loop);
  std::vector<Step>& body = loop.body;
  bodies.push_back({&body, nest});
  for (size_t s = 0; s < body.size(); ++s) {
    if (body[s].is_loop()) {
      for (const LoopOverlap& overlap : body[s].loop().overlaps) {
        found.elsewhere[static_cast<size_t>(overlap.input)] = true;
        found.elsewhere[static_cast<size_t>(overlap.output)] = true;
      }
      record_body(std::get<Loop>(body[s].what), nest, found, bodies);
      continue;
    }
    const KernelCall& call = body[s].call();
    auto use = [&](BufferId b, bool is_output) {
      const auto i = static_cast<size_t>(b);
      if (found.body[i] != nullptr && found.body[i] != &body) found.elsewhere[i] = true;
      found.body[i] = &body;
      found.uses[i].push_back({s, is_output});
    };
    for (const View& view : call.inputs) use(view.buffer, false);
    for (const View& view : call.outputs) use(view.buffer, true);
    if (call.workspace >= 0) found.elsewhere[static_cast<size_t>(call.workspace)] = true;
  }
}

// Every buffer's uses, and the loop bodies of the plan (nested ones after
// the body holding them).
BufferUses find_uses(Plan& plan, std::vector<Body>& bodies) {
  BufferUses found;
  const size_t n = plan.buffers.size();
  found.body.assign(n, nullptr);
  found.elsewhere.assign(n, false);
  found.uses.resize(n);
  for (Step& step : plan.steps) {
    if (step.is_loop()) {
      for (const LoopOverlap& overlap : step.loop().overlaps) {
        found.elsewhere[static_cast<size_t>(overlap.input)] = true;
        found.elsewhere[static_cast<size_t>(overlap.output)] = true;
      }
      record_body(std::get<Loop>(step.what), {}, found, bodies);
      continue;
    }
    step.call().for_each_buffer([&](BufferId b) { found.elsewhere[static_cast<size_t>(b)] = true; });
  }
  for (BufferId b : plan.inputs) found.elsewhere[static_cast<size_t>(b)] = true;
  for (BufferId b : plan.outputs) found.elsewhere[static_cast<size_t>(b)] = true;
  return found;
}

// Whether `view` lays its buffer out as `like` does: the same strides and,
// on every swept axis, the same loop and base (first and last may differ).
bool has_layout_of(const View& view, const View& like) {
  if (view.strides != like.strides || view.sweeps.size() != like.sweeps.size()) return false;
  for (const Sweep& sweep : view.sweeps) {
    const Sweep* other = like.find_sweep(sweep.axis);
    if (other == nullptr || other->loop != sweep.loop || !(other->base == sweep.base)) return false;
  }
  return true;
}

bool is_same_but_buffer(const View& a, const View& b) {
  return a.offset_elements == b.offset_elements && a.shape == b.shape && a.strides == b.strides &&
         a.sweeps == b.sweeps;
}

// Whether a Slice call may copy over its input in every iteration of the
// loop around it (ir::InplaceRule::kForwardCopy, as exec/bind_data_movement.cc
// binds it: on a swept axis the input view starts at the first element read):
// along every axis the output advances no faster than the input is read, so
// the smallest distance between an element's source and destination is the
// first element's, and that is at least the run the kernel copies at once
// (runtime/include/tinyfit/strided_copy.h).
bool copies_forward_in_place(const ir::Graph& graph, const KernelCall& call, const Loop& loop) {
  const auto& a = graph.nodes[static_cast<size_t>(call.node)].attr<ir::SliceAttrs>();
  const View& in_view = call.inputs[0];
  const View& out_view = call.outputs[0];
  constexpr int kRank = 4;
  if (in_view.rank() != kRank || out_view.rank() != kRank || a.begin.size() != kRank) return false;
  for (int64_t i = 0; i < count_iterations(loop); ++i) {
    const LoopChunk chunk{&loop, i, chunk_of_iteration(loop, i)};
    const ViewInstance in = resolve_view(in_view, std::span<const LoopChunk>(&chunk, 1));
    const ViewInstance out = resolve_view(out_view, std::span<const LoopChunk>(&chunk, 1));
    if (out.count_elements() == 0) continue;
    int64_t source = in.offset_elements;
    for (size_t d = 0; d < kRank; ++d) {
      const int64_t step_stride = in.strides[d] * a.step[d];
      if (out.shape[d] > 1 && step_stride < out.strides[d]) return false;
      if (out_view.find_sweep(static_cast<int>(d)) == nullptr) source += a.begin[d] * in.strides[d];
    }
    const bool whole_pixels = in.strides[3] * a.step[3] == 1 && out.strides[3] == 1;
    const int64_t run = whole_pixels ? out.shape[3] : 1;
    if (source - out.offset_elements < run) return false;
  }
  return true;
}

// The input buffer call `s` of `body` may write its output over (the rule of
// the header), or nothing.
std::optional<BufferId> find_input_to_overwrite(const ir::Graph& graph, const Plan& plan, const BufferUses& found,
                                                const Body& body, size_t s) {
  const std::vector<Step>& steps = *body.steps;
  const KernelCall& call = steps[s].call();
  if (call.mode != CallMode::kWhole || call.node < 0 || !call.fused.empty() || call.overlap ||
      call.outputs.size() != 1) {
    return std::nullopt;
  }
  const ir::Node& node = graph.nodes[static_cast<size_t>(call.node)];
  const ir::InplaceRule rule = ir::op_decl(node.op).inplace;
  const bool forward_copy = rule == ir::InplaceRule::kForwardCopy && body.nest.size() == 1;
  if (node.outputs.size() != 1 || (rule != ir::InplaceRule::kElementwise && !forward_copy)) return std::nullopt;
  auto local = [&](BufferId b) {
    const auto i = static_cast<size_t>(b);
    return plan.buffers[i].role == BufferRole::kPartial && !found.elsewhere[i] && found.body[i] == &steps;
  };
  const View& out = call.outputs[0];
  const BufferId written = out.buffer;
  if (!local(written)) return std::nullopt;
  for (const BodyUse& use : found.uses[static_cast<size_t>(written)]) {
    if (use.is_output && use.step != s) return std::nullopt;
    const KernelCall& user = steps[use.step].call();
    for (const auto* views : {&user.inputs, &user.outputs}) {
      for (const View& view : *views) {
        if (view.buffer == written && !has_layout_of(view, out)) return std::nullopt;
      }
    }
  }
  for (size_t i = 0; i < call.inputs.size(); ++i) {
    const View& in = call.inputs[i];
    const BufferId read = in.buffer;
    if (read == written || !local(read) ||
        ir::dtype_size_bytes(plan.buffers[static_cast<size_t>(read)].dtype) !=
            ir::dtype_size_bytes(plan.buffers[static_cast<size_t>(written)].dtype)) {
      continue;
    }
    bool read_again = false;
    for (size_t k = 0; k < call.inputs.size(); ++k) {
      read_again = read_again || (k != i && call.inputs[k].buffer == read);
    }
    for (const BodyUse& use : found.uses[static_cast<size_t>(read)]) read_again = read_again || use.step > s;
    if (read_again) continue;
    const bool safe = forward_copy ? copies_forward_in_place(graph, call, *body.nest.front())
                                   : is_same_but_buffer(in, out);
    if (safe) return read;
  }
  return std::nullopt;
}

// Makes every view of buffer `from` in `steps` (and the loops among them) a
// view of `to`.
void rename_views(std::vector<Step>& steps, BufferId from, BufferId to) {
  for (Step& step : steps) {
    if (step.is_loop()) {
      rename_views(std::get<Loop>(step.what).body, from, to);
      continue;
    }
    KernelCall& call = std::get<KernelCall>(step.what);
    for (auto* views : {&call.inputs, &call.outputs}) {
      for (View& view : *views) {
        if (view.buffer == from) view.buffer = to;
      }
    }
  }
}

}  // namespace

RowsInPlaceResult write_rows_in_place(const ir::Graph& graph, Plan plan) {
  RowsInPlaceResult result;
  int64_t peak = compute_plan_memory(plan).peak_bytes;
  // Calls (body, step: the bodies' order and steps never change) whose merge
  // raised the peak: the kept buffer is larger than the dropped one (a Slice's
  // input, or a band held for more rows) and lives on in its place.
  std::set<std::pair<size_t, size_t>> rejected;
  // One call at a time: each merge changes the uses the next one is judged by.
  for (bool merged = true; merged;) {
    merged = false;
    std::vector<Body> bodies;
    const BufferUses found = find_uses(plan, bodies);
    for (size_t b = 0; b < bodies.size() && !merged; ++b) {
      const std::vector<Step>& steps = *bodies[b].steps;
      for (size_t s = 0; s < steps.size() && !merged; ++s) {
        if (steps[s].is_loop() || rejected.contains({b, s})) continue;
        const std::optional<BufferId> read = find_input_to_overwrite(graph, plan, found, bodies[b], s);
        if (!read) continue;
        const BufferId written = steps[s].call().outputs[0].buffer;
        Plan trial = plan;
        PlanBuffer& kept = trial.buffers[static_cast<size_t>(*read)];
        const PlanBuffer& dropped = trial.buffers[static_cast<size_t>(written)];
        kept.bytes = std::max(kept.bytes, dropped.bytes);
        kept.alignment = std::max(kept.alignment, dropped.alignment);
        rename_views(trial.steps, written, *read);
        std::vector<bool> removed(trial.buffers.size(), false);
        removed[static_cast<size_t>(written)] = true;
        remove_buffers(trial, removed);
        const int64_t trial_peak = compute_plan_memory(trial).peak_bytes;
        if (trial_peak > peak) {
          rejected.insert({b, s});
          continue;
        }
        plan = std::move(trial);
        peak = trial_peak;
        ++result.calls_in_place;
        merged = true;
      }
    }
  }
  if (result.calls_in_place > 0) {
    plan.techniques.push_back("rowinplace");
    result.note = std::to_string(result.calls_in_place) +
                  " element-wise or slice calls in loops write over their input's rows";
  }
  result.plan = std::move(plan);
  return result;
}

}  // namespace tinyfit::plan
