#include "plan/print_plan.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include "plan/plan_memory.h"
#include "plan/plan_walk.h"
#include "support/display_text.h"

namespace tinyfit::plan {
namespace {

std::string join_dims(const ir::Shape& dims, char separator) {
  std::string text;
  for (size_t i = 0; i < dims.size(); ++i) text += (i == 0 ? "" : std::string(1, separator)) + std::to_string(dims[i]);
  return text;
}

std::string format_views(const std::vector<View>& views, LoopNest nest) {
  std::string text;
  for (const View& view : views) text += (text.empty() ? "" : ", ") + format_view(view, nest);
  return text.empty() ? "-" : text;
}

void print_call(std::ostream& out, const ir::Graph& graph, const KernelCall& call, int position,
                const std::string& indent, LoopNest nest) {
  out << indent << "p" << position << "  ";
  if (call.node >= 0) {
    const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
    out << escape_for_display(node.name) << " (" << ir::op_type_name(node.op) << ")";
    for (ir::NodeId id : call.fused) {
      const ir::Node& fused = graph.nodes.at(static_cast<size_t>(id));
      out << " + " << escape_for_display(fused.name) << " (" << ir::op_type_name(fused.op) << ")";
    }
  } else {
    out << "(copy)";
  }
  out << " " << call_mode_name(call.mode);
  if (call.mode == CallMode::kAccumulate || call.mode == CallMode::kFinalize) {
    out << " acc" << call.accumulator_bits;
  }
  out << "  in: " << format_views(call.inputs, nest) << "  out: " << format_views(call.outputs, nest);
  if (call.workspace >= 0) out << "  workspace: b" << call.workspace;
  if (call.wide_weights) out << "  wide weights";
  if (call.overlap) {
    out << "  overlap: out at in" << call.overlap->input << (call.overlap->offset_bytes < 0 ? "" : "+")
        << call.overlap->offset_bytes << " bytes, " << traversal_name(call.overlap->traversal);
  }
  out << "\n";
}

void print_steps(std::ostream& out, const ir::Graph& graph, const std::vector<Step>& steps, int& position,
                 std::vector<const Loop*>& nest) {
  const std::string indent(2 * (nest.size() + 1), ' ');
  for (const Step& step : steps) {
    if (!step.is_loop()) {
      print_call(out, graph, step.call(), position++, indent, nest);
      continue;
    }
    const Loop& loop = step.loop();
    out << indent << "loop " << loop.name << ": " << count_iterations(loop) << " iterations over " << loop.extent
        << " " << loop_axis_name(loop.axis) << ", tile " << loop.tile << ", chunk [b" << nest.size() << ", e"
        << nest.size() << ")\n";
    for (const LoopOverlap& overlap : loop.overlaps) {
      out << indent << "  overlap: b" << overlap.output << " at b" << overlap.input
          << (overlap.offset_bytes < 0 ? "" : "+") << overlap.offset_bytes << " bytes (rows written over consumed rows)\n";
    }
    nest.push_back(&loop);
    print_steps(out, graph, loop.body, position, nest);
    nest.pop_back();
  }
}

// "b0" / "e1" for the chunk bound of the loop at that depth.
std::string chunk_variable(BoundOf of, int loop) { return (of == BoundOf::kChunkBegin ? "b" : "e") + std::to_string(loop); }

}  // namespace

std::string format_bound(const Bound& bound, int loop, LoopNest nest) {
  if (bound.scale == 0 && bound.low == bound.offset && bound.high == bound.offset) return std::to_string(bound.offset);
  const std::string chunk = chunk_variable(bound.of, loop);
  const std::string x = bound.divisor == 1 ? chunk : "floor(" + chunk + "/" + std::to_string(bound.divisor) + ")";
  const bool known_loop = loop >= 0 && static_cast<size_t>(loop) < nest.size();
  if (bound == make_chunk_bound(bound.of, known_loop ? nest[static_cast<size_t>(loop)]->extent : -1)) return chunk;
  std::string affine = bound.scale == 1 ? x : std::to_string(bound.scale) + "*" + x;
  if (bound.offset != 0) affine += (bound.offset > 0 ? "+" : "") + std::to_string(bound.offset);
  return "clamp(" + affine + ", " + std::to_string(bound.low) + ", " + std::to_string(bound.high) + ")";
}

std::string format_view(const View& view, LoopNest nest) {
  std::ostringstream out;
  out << "b" << view.buffer;
  if (view.offset_elements != 0) out << "+" << view.offset_elements;
  out << " " << join_dims(view.shape, 'x') << " /" << join_dims(view.strides, ',');
  for (const Sweep& sweep : view.sweeps) {
    out << " axis " << sweep.axis << " [" << format_bound(sweep.first, sweep.loop, nest) << ", "
        << format_bound(sweep.last, sweep.loop, nest) << ")";
    if (!(sweep.base == make_constant_bound(0))) out << " from " << format_bound(sweep.base, sweep.loop, nest);
  }
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
        << " p" << life.first_step << "..p" << life.last_step << "  " << escape_for_display(b.name) << "\n"
        << std::right;
  }

  out << "steps:\n";
  int position = 0;
  std::vector<const Loop*> nest;
  print_steps(out, graph, plan.steps, position, nest);
}

}  // namespace tinyfit::plan
