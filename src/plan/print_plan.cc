#include "plan/print_plan.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "plan/plan_memory.h"

namespace tinyfit::plan {
namespace {

std::string join_dims(const ir::Shape& dims, char separator) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i) text += (i == 0 ? "" : std::string(1, separator)) + std::to_string(dims[i]);
  return text;
}

std::string format_views(const std::vector<View>& views) {
  std::string text;
  for (const View& view : views) text += (text.empty() ? "" : ", ") + format_view(view);
  return text.empty() ? "-" : text;
}

void print_call(std::ostream& out, const ir::Graph& graph, const KernelCall& call, int position,
                const std::string& indent) {
  out << indent << "p" << position << "  ";
  if (call.node >= 0) {
    const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
    out << node.name << " (" << ir::op_type_name(node.op) << ")";
  } else {
    out << "(copy)";
  }
  out << " " << call_mode_name(call.mode);
  if (call.mode == CallMode::kAccumulate || call.mode == CallMode::kFinalize) {
    out << " acc" << call.accumulator_bits;
  }
  out << "  in: " << format_views(call.inputs) << "  out: " << format_views(call.outputs);
  if (call.workspace >= 0) out << "  workspace: b" << call.workspace;
  out << "\n";
}

}  // namespace

std::string format_view(const View& view) {
  std::ostringstream out;
  out << "b" << view.buffer;
  if (view.offset_elements != 0) out << "+" << view.offset_elements;
  out << " ";
  for (int axis = 0; axis < view.rank(); ++axis) {
    const std::string extent = std::to_string(view.shape[static_cast<size_t>(axis)]);
    out << (axis == 0 ? "" : "x") << (axis == view.chunk_axis ? "[" + extent + "]" : extent);
  }
  out << " /" << join_dims(view.strides, ',');
  if (view.chunk_axis >= 0) out << " chunk axis " << view.chunk_axis << " (+" << view.chunk_stride << ")";
  return out.str();
}

void print_plan(std::ostream& out, const ir::Graph& graph, const Plan& plan) {
  const PlanMemory memory = compute_plan_memory(plan);
  std::string techniques;
  for (const std::string& t : plan.techniques) techniques += (techniques.empty() ? "" : ", ") + t;
  out << "plan: " << plan.buffers.size() << " buffers, " << plan.steps.size() << " steps, " << plan.count_calls()
      << " kernel calls per inference, peak " << memory.peak_bytes << " bytes, arena " << plan.arena_bytes
      << " bytes, techniques: " << (techniques.empty() ? "none (ordinary execution)" : techniques) << "\n";

  out << "buffers (lifetime in positions p, inclusive):\n";
  size_t role_width = 4;
  size_t bytes_width = 1;
  for (const PlanBuffer& b : plan.buffers) {
    role_width = std::max(role_width, buffer_role_name(b.role).size());
    bytes_width = std::max(bytes_width, std::to_string(b.bytes).size());
  }
  const size_t id_width = std::to_string(plan.buffers.size()).size() + 1;
  for (size_t id = 0; id < plan.buffers.size(); ++id) {
    const PlanBuffer& b = plan.buffers[id];
    const PlacementBuffer& life = memory.buffers[id];
    out << "  " << std::left << std::setw(static_cast<int>(id_width)) << ("b" + std::to_string(id)) << "  "
        << std::setw(static_cast<int>(role_width)) << buffer_role_name(b.role) << "  " << std::setw(4)
        << ir::dtype_name(b.dtype) << std::right << std::setw(static_cast<int>(bytes_width) + 1) << b.bytes
        << " bytes  @" << std::left << std::setw(8) << (b.offset < 0 ? "-" : std::to_string(b.offset))
        << " p" << life.first_step << "..p" << life.last_step << "  " << b.name << "\n"
        << std::right;
  }

  out << "steps:\n";
  int position = 0;
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const Step& step = plan.steps[s];
    if (!step.is_loop()) {
      print_call(out, graph, step.call(), position++, "  ");
      continue;
    }
    const Loop& loop = step.loop();
    out << "  loop " << loop.name << ": " << count_iterations(loop) << " iterations over " << loop.extent
        << " channels, tile " << loop.tile << "\n";
    for (const KernelCall& call : loop.body) print_call(out, graph, call, position++, "    ");
  }
}

}  // namespace tinyfit::plan
