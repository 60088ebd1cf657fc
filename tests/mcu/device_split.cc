#include "device_split.h"

#include <map>
#include <set>

#include "plan/plan_memory.h"

namespace tinyfit::mcu {
namespace {

template <typename F>
void for_each_view(plan::KernelCall& call, F f) {
  for (plan::View& v : call.inputs) f(v, false);
  for (plan::View& v : call.outputs) f(v, true);
}

}  // namespace

std::vector<codegen::DeviceProgram> DeviceSplit::programs(const ir::Graph& graph) const {
  std::vector<codegen::DeviceProgram> out;
  for (size_t d = 0; d < plans.size(); ++d) out.push_back({&graph, &plans[d], steps[d], {}});
  return out;
}

Result<DeviceSplit> split_plan_at_step(const plan::Plan& whole, int cut) {
  const int steps = static_cast<int>(whole.steps.size());
  if (cut <= 0 || cut >= steps) return fail("cut " + std::to_string(cut) + " outside (0, " + std::to_string(steps) + ")");
  for (const plan::Step& step : whole.steps) {
    if (step.is_loop()) return fail("the plan has loops; the cut takes top-level calls only");
  }
  // Which buffers each side writes and reads.
  std::set<plan::BufferId> written_before, read_after;
  for (int s = 0; s < steps; ++s) {
    plan::KernelCall call = whole.steps[static_cast<size_t>(s)].call();
    for_each_view(call, [&](const plan::View& v, bool output) {
      if (s < cut && output) written_before.insert(v.buffer);
      if (s >= cut && !output) read_after.insert(v.buffer);
    });
  }
  std::vector<plan::BufferId> crossing;
  for (plan::BufferId b : read_after) {
    if (written_before.contains(b)) crossing.push_back(b);
  }
  if (crossing.size() != 1) return fail(std::to_string(crossing.size()) + " buffers cross the cut, expected 1");
  const plan::BufferId moved = crossing.front();
  // The tensor as its producer writes it: both sides move it whole.
  plan::View moved_view;
  for (int s = 0; s < cut; ++s) {
    for (const plan::View& v : whole.steps[static_cast<size_t>(s)].call().outputs) {
      if (v.buffer == moved) moved_view = v;
    }
  }

  DeviceSplit split;
  split.plans.resize(2);
  split.steps.resize(2);
  for (int d = 0; d < 2; ++d) {
    plan::Plan& part = split.plans[static_cast<size_t>(d)];
    part.techniques = whole.techniques;
    part.techniques.push_back("devices:pipeline-cut");
    std::map<plan::BufferId, plan::BufferId> renumbered;
    const auto renumber = [&](plan::BufferId b) {
      auto [it, added] = renumbered.try_emplace(b, static_cast<plan::BufferId>(part.buffers.size()));
      if (added) {
        plan::PlanBuffer buffer = whole.buffers[static_cast<size_t>(b)];
        buffer.offset = -1;
        part.buffers.push_back(buffer);
      }
      return it->second;
    };
    const int first = d == 0 ? 0 : cut, last = d == 0 ? cut : steps;
    int first_read = -1, written_at = -1;
    for (int s = first; s < last; ++s) {
      plan::Step step = whole.steps[static_cast<size_t>(s)];
      plan::KernelCall& call = std::get<plan::KernelCall>(step.what);
      for_each_view(call, [&](plan::View& v, bool output) {
        if (v.buffer == moved && output) written_at = s - first;
        if (v.buffer == moved && !output && first_read < 0) first_read = s - first;
        v.buffer = renumber(v.buffer);
      });
      if (call.workspace >= 0) call.workspace = renumber(call.workspace);
      part.steps.push_back(std::move(step));
    }
    // Placement counts model inputs live from the start and outputs to the
    // end; a device that holds them uses them in its first / last step
    // anyway (a chain), so they are placed as its other buffers and listed
    // afterwards.
    TINYFIT_RETURN_IF_ERROR(plan::place_plan(part, "greedy-by-size", {}));
    for (plan::BufferId b : whole.inputs) part.inputs.push_back(renumbered.contains(b) ? renumbered[b] : -1);
    for (plan::BufferId b : whole.outputs) part.outputs.push_back(renumbered.contains(b) ? renumbered[b] : -1);

    codegen::LinkTransfer transfer;
    transfer.peer = 1 - d;
    moved_view.buffer = renumbered.at(moved);
    transfer.view = codegen::make_static_view(part, moved_view);
    transfer.label = "'" + whole.buffers[static_cast<size_t>(moved)].name + "'";
    transfer.direction = d == 0 ? codegen::LinkDirection::kSend : codegen::LinkDirection::kReceive;
    const int transfer_before = d == 0 ? written_at + 1 : first_read;
    std::vector<codegen::DeviceStep>& steps_of_device = split.steps[static_cast<size_t>(d)];
    for (int s = 0; s < static_cast<int>(part.steps.size()); ++s) {
      if (s == transfer_before) steps_of_device.push_back(transfer);
      steps_of_device.push_back(codegen::PlanStepRef{s});
    }
    if (transfer_before == static_cast<int>(part.steps.size())) steps_of_device.push_back(transfer);
  }
  return split;
}

}  // namespace tinyfit::mcu
