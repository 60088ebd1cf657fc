#include "driver/memory_report.h"

#include "analysis/buffer_graph.h"
#include "analysis/inplace.h"
#include "analysis/lower_bound.h"
#include "analysis/memory_profile.h"
#include "driver/schedule_names.h"
#include "ir/op_decl.h"
#include "plan/placement.h"
#include "plan/placement_input.h"
#include "plan/verify_placement.h"
#include "schedule/order_best.h"

namespace tinyfit::driver {
namespace {

Bottleneck describe_bottleneck(const ir::Graph& graph, const analysis::BufferGraph& bg,
                               const analysis::MemoryProfile& profile, const analysis::Order& order) {
  Bottleneck b;
  if (order.empty()) return b;
  b.step = profile.peak_step;
  const analysis::Operator& op = bg.operators[static_cast<size_t>(order[static_cast<size_t>(b.step)])];
  b.node = op.name;
  b.op = std::string(ir::op_type_name(graph.nodes[static_cast<size_t>(op.node)].op));
  for (int buffer : analysis::live_buffers_at(profile, bg, b.step)) {
    const analysis::Buffer& live = bg.buffers[static_cast<size_t>(buffer)];
    b.tensors.push_back({live.name, live.bytes});
  }
  if (op.workspace_bytes > 0) b.tensors.push_back({op.name + " (workspace)", op.workspace_bytes});
  return b;
}

}  // namespace

Result<MemoryReport> analyze_memory(const ir::Graph& graph, const AnalyzeOptions& options) {
  const schedule::OrderAlgorithm* ordering = schedule::find_order_algorithm(options.order);
  if (!ordering) {
    return fail("unknown order '" + options.order + "' (use given, rpo, exact, hierarchical or best)",
                ExitCode::kBadCommandLine);
  }
  const plan::PlacementAlgorithm* placing = plan::find_placement_algorithm(options.placement);
  if (!placing) {
    return fail("unknown placement '" + options.placement + "'", ExitCode::kBadCommandLine);
  }

  analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const int64_t lower_bound_bytes = analysis::compute_peak_lower_bound(bg, options.inplace).bytes;
  schedule::OrderOptions order_options;
  order_options.inplace = options.inplace;
  order_options.deadline = options.deadline;
  order_options.progress = options.progress;
  schedule::OrderResult ordered = ordering->run(bg, order_options);
  TINYFIT_CHECK(analysis::is_topological_order(bg, ordered.order)) << "order '" << options.order
                                                                   << "' is not topological";
  // In-place merges depend on where each input dies: the search chose them
  // with the order, and its peak must be the one of the plan they make.
  plan::PlacementOptions placement_options;
  placement_options.deadline = options.deadline;
  struct Placed {
    analysis::BufferGraph bg;
    analysis::MemoryProfile profile;
    plan::Placement placement;
  };
  auto place = [&](const analysis::InplaceChoices& choices) {
    Placed p;
    p.bg = options.inplace ? analysis::apply_inplace_choices(bg, ordered.order, choices).graph : bg;
    p.profile = analysis::compute_memory_profile(p.bg, ordered.order);
    const std::vector<plan::PlacementBuffer> records = plan::build_placement_buffers(p.bg, p.profile, ordered.order);
    p.placement = placing->place(records, placement_options);
    // A placement that collides is our bug, not the user's model.
    const Status valid = plan::verify_placement(records, p.placement);
    TINYFIT_CHECK(valid) << valid.error().message;
    return p;
  };
  Placed placed = place(ordered.inplace_choices);
  TINYFIT_CHECK(placed.profile.peak_bytes == ordered.peak_bytes)
      << "order '" << options.order << "' reports peak " << ordered.peak_bytes << ", its plan peaks at "
      << placed.profile.peak_bytes;
  // A merge away from the peak saves nothing there and leaves one long block
  // to place around: above the peak, try only the merges the peak needs.
  if (options.inplace && placed.placement.arena_bytes > placed.profile.peak_bytes) {
    Placed fewer = place(analysis::keep_choices_the_peak_needs(bg, ordered.order, ordered.inplace_choices));
    if (fewer.placement.arena_bytes < placed.placement.arena_bytes) placed = std::move(fewer);
  }
  bg = std::move(placed.bg);
  const analysis::MemoryProfile& profile = placed.profile;
  const plan::Placement& placement = placed.placement;

  MemoryReport report;
  report.model = graph.source_path;
  report.peak_bytes = profile.peak_bytes;
  report.arena_bytes = placement.arena_bytes;
  report.flash_bytes = graph.flash_bytes();
  report.macs = ir::count_graph_macs(graph);
  report.lower_bound_bytes = lower_bound_bytes;
  for (ir::TensorId id : graph.inputs) report.input_bytes += graph.tensor(id).size_bytes();
  if (options.order != "given") report.techniques.push_back("ordering");
  if (options.inplace) report.techniques.push_back("inplace");
  report.order = options.order;
  report.order_optimal = ordered.optimal;
  report.order_note = ordered.note;
  report.placement = placement.algorithm;
  report.placement_optimal = placement.proven_optimal;
  report.placement_note = placement.note;
  report.bottleneck = describe_bottleneck(graph, bg, profile, ordered.order);
  for (size_t s = 0; s < ordered.order.size(); ++s) {
    const analysis::Operator& op = bg.operators[static_cast<size_t>(ordered.order[s])];
    report.steps.push_back({op.name, std::string(ir::op_type_name(graph.nodes[static_cast<size_t>(op.node)].op)),
                            profile.steps[s].execution_bytes, profile.steps[s].interval_bytes});
  }
  report.schedule = list_schedule_names(graph, bg, ordered.order);
  return report;
}

}  // namespace tinyfit::driver
