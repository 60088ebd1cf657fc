#include "driver/select_workspaces.h"

#include <algorithm>
#include <set>
#include <utility>

#include "cost/predict.h"
#include "exec/add_kernel_workspaces.h"
#include "exec/plan_work.h"
#include "plan/plan_memory.h"

namespace tinyfit::driver {
namespace {

// The runtime kernels a call's work names, joined for reports ("a+b").
std::string name_kernels(const cost::PlanWork& work) {
  std::string names;
  for (const auto& [kernel, features] : work.kernels) names += (names.empty() ? "" : "+") + kernel;
  return names;
}

// Adds the kernels of `work` the table lacks to `unmeasured`; true when there were none.
bool note_unmeasured(const cost::CostTable& table, const cost::PlanWork& work, std::vector<std::string>& unmeasured) {
  const std::vector<std::string> missing = cost::find_unmeasured_kernels(table, work);
  for (const std::string& kernel : missing) {
    if (std::find(unmeasured.begin(), unmeasured.end(), kernel) == unmeasured.end()) unmeasured.push_back(kernel);
  }
  return missing.empty();
}

}  // namespace

Result<WorkspaceProblem> build_workspace_problem(const ir::Graph& graph, const plan::Plan& plan,
                                                 const cost::CostTable& table) {
  WorkspaceProblem result;
  const plan::PlanMemory memory = plan::compute_plan_memory(plan);
  result.problem.live_bytes = memory.live_bytes;
  TINYFIT_ASSIGN_OR_RETURN(const cost::PlanWork total, exec::count_plan_work(graph, plan));
  if (!note_unmeasured(table, total, result.unmeasured)) return result;  // no prediction, so no choice
  TINYFIT_ASSIGN_OR_RETURN(const double whole, cost::predict_instructions(table, total));
  result.fixed_instructions = whole;
  result.predicted = true;

  plan::Plan with_workspaces = plan;
  TINYFIT_ASSIGN_OR_RETURN(const int added, exec::add_kernel_workspaces(graph, with_workspaces));
  if (added == 0) return result;
  TINYFIT_ASSIGN_OR_RETURN(const auto work_without, exec::count_call_work(graph, plan));
  TINYFIT_ASSIGN_OR_RETURN(const auto work_with, exec::count_call_work(graph, with_workspaces));
  // Workspaces change no step, so a position names the same call in both plans.
  for (size_t position = 0; position < memory.positions.size(); ++position) {
    const plan::KernelCall& without = plan::call_at(plan, memory.positions[position]);
    const plan::KernelCall& with = plan::call_at(with_workspaces, memory.positions[position]);
    if (without.workspace >= 0 || with.workspace < 0) continue;
    const cost::PlanWork& work0 = work_without.at(&without);
    const cost::PlanWork& work1 = work_with.at(&with);
    const bool measured0 = note_unmeasured(table, work0, result.unmeasured);
    const bool measured1 = note_unmeasured(table, work1, result.unmeasured);
    if (!measured0 || !measured1) continue;
    TINYFIT_ASSIGN_OR_RETURN(const double time0, cost::predict_instructions(table, work0));
    TINYFIT_ASSIGN_OR_RETURN(const double time1, cost::predict_instructions(table, work1));
    plan::SelectionSite site;
    site.position = static_cast<int>(position);
    site.choices.push_back({name_kernels(work0), time0, 0, 0, 0});
    site.choices.push_back({name_kernels(work1), time1,
                            with_workspaces.buffers.at(static_cast<size_t>(with.workspace)).bytes, 0, 0});
    result.fixed_instructions -= time0;
    result.problem.sites.push_back(std::move(site));
    result.site_positions.push_back(static_cast<int>(position));
  }
  return result;
}

Result<plan::Plan> apply_workspace_selection(const ir::Graph& graph, const plan::Plan& plan,
                                             const WorkspaceProblem& problem, const plan::Selection& selection) {
  TINYFIT_CHECK(selection.choice.size() == problem.site_positions.size()) << "a selection of another problem";
  plan::Plan selected = plan;
  const plan::PlanMemory memory = plan::compute_plan_memory(selected);
  std::set<const plan::KernelCall*> chosen;
  for (size_t s = 0; s < selection.choice.size(); ++s) {
    if (selection.choice[s] != 1) continue;
    chosen.insert(&plan::call_at(selected, memory.positions.at(static_cast<size_t>(problem.site_positions[s]))));
  }
  TINYFIT_ASSIGN_OR_RETURN(const int added, exec::add_kernel_workspaces(graph, selected, [&](const plan::KernelCall& call) {
                                                  return chosen.contains(&call);
                                                }));
  TINYFIT_CHECK(static_cast<size_t>(added) == chosen.size()) << "a chosen call got no workspace";
  return selected;
}

}  // namespace tinyfit::driver
