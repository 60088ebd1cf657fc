// tinyfit_bench_row_loop: the memory of row loops (plan/lower_row_loop.h,
// docs/row_loops.md) over a model's first operators, against ordinary
// execution of the same operators, from one run. For each chain (the first N
// operators of the model's own order) and tile, one row:
//   - ordinary: the largest live bytes while those N operators run whole;
//   - row loop: the largest live bytes inside the loop (its carried buffers,
//     and the whole tensors it reads or writes, included);
//   - plan: the peak of the whole model's plan with that loop (the rest whole);
//   - MACs over ordinary (1.000: no row computed twice), kernel calls per
//     inference, bytes the BlockConcat copies move per inference (their extra
//     work), and whether the plan, executed in an arena of exactly its size,
//     matched the reference interpreter.
// With --m4, the chain's operators also run alone (a graph of those
// operators, outputs what the rest of the model reads) as emitted C on the
// emulated Cortex-M4 (QEMU mps2-an386, SysTick under -icount shift=0), both
// ordinary and as the row loop, each checked against the reference
// interpreter's and the plan executor's bytes: retired instructions of one inference, their ratio, and the
// instructions of the BlockConcat copies, measured as the difference from
// the same program with its copies left out (whose output is then wrong and
// not checked).
// --workspaces gives both plans' conv calls the workspaces of their fastest
// kernels (exec/add_kernel_workspaces.h), as the fastest plan would.
// Usage: tinyfit_bench_row_loop MODEL [--operators 2,6] [--tiles 1,2,8] [--no-verify] [--m4 [--workspaces]]
// A benchmark, not a test: CI builds it and does not run it.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/buffer_graph.h"
#include "checked_model.h"
#include "emitted_build.h"
#include "exec/add_kernel_workspaces.h"
#include "exec/plan_executor.h"
#include "import/graph_rewrite.h"
#include "analysis/memory_profile.h"
#include "driver/compile_verify.h"
#include "import/import_model.h"
#include "plan/build_plan.h"
#include "plan/lower_row_loop.h"
#include "plan/plan_macs.h"
#include "plan/plan_memory.h"
#include "plan/plan_walk.h"
#include "plan/verify_plan.h"

namespace tinyfit {
namespace {

// The largest live bytes over positions [first, last] of a plan's memory.
int64_t find_peak_between(const plan::PlanMemory& memory, int first, int last) {
  int64_t peak = 0;
  for (int p = first; p <= last; ++p) peak = std::max(peak, memory.live_bytes.at(static_cast<size_t>(p)));
  return peak;
}

// Bytes the plan's kCopy calls move per inference.
int64_t count_copied_bytes(const plan::Plan& plan) {
  int64_t bytes = 0;
  const Status walked = plan::walk_call_instances(
      plan.steps, {[&](const plan::KernelCall& call, std::span<const plan::LoopChunk> nest) -> Status {
                     if (call.mode != plan::CallMode::kCopy) return {};
                     const plan::PlanBuffer& buffer = plan.buffers[static_cast<size_t>(call.outputs[0].buffer)];
                     bytes += plan::resolve_view(call.outputs[0], nest).count_elements() * ir::dtype_size_bytes(buffer.dtype);
                     return {};
                   },
                   {}});
  TINYFIT_CHECK(walked.has_value()) << walked.error().message;
  return bytes;
}

std::string format_thousands(int64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > (value < 0 ? 1 : 0); i -= 3) {
    digits.insert(static_cast<size_t>(i), ",");
  }
  return digits;
}

// The graph of the first `operators` operators of `order` alone: its
// outputs are the tensors they make that later operators (or the model's
// outputs) read.
ir::Graph make_prefix_graph(const ir::Graph& graph, const analysis::BufferGraph& bg, const analysis::Order& order,
                            int operators) {
  std::vector<bool> dead(graph.nodes.size(), true);
  for (int i = 0; i < operators; ++i) {
    dead[static_cast<size_t>(bg.operators[static_cast<size_t>(order[static_cast<size_t>(i)])].node)] = false;
  }
  ir::Graph prefix = graph;
  prefix.outputs.clear();
  const std::vector<std::vector<ir::NodeId>> consumers = graph.compute_consumers();
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (dead[n]) continue;
    for (ir::TensorId t : graph.nodes[n].outputs) {
      const bool read_later = import::is_graph_output(graph, t) ||
                              std::any_of(consumers[static_cast<size_t>(t)].begin(), consumers[static_cast<size_t>(t)].end(),
                                          [&](ir::NodeId c) { return dead[static_cast<size_t>(c)]; });
      if (read_later) prefix.outputs.push_back(t);
    }
  }
  import::erase_nodes(prefix, dead);
  prefix.remove_unused_tensors();
  return prefix;
}

// The plan without its kCopy calls: what the copies cost, by difference.
plan::Plan drop_copies(plan::Plan plan) {
  for (plan::Step& step : plan.steps) {
    if (!step.is_loop()) continue;
    std::vector<plan::Step>& body = std::get<plan::Loop>(step.what).body;
    std::erase_if(body, [](const plan::Step& s) { return !s.is_loop() && s.call().mode == plan::CallMode::kCopy; });
  }
  return plan;
}

struct M4Run {
  uint64_t instructions = 0;  // retired on the emulated Cortex-M4, one inference
  int64_t arena_bytes = 0;
};

// `plan` (unplaced), with its conv calls' fast-kernel workspaces when
// `workspaces` (exec/add_kernel_workspaces.h), placed, emitted and run on the
// Cortex-M4; `check`: its outputs must equal the plan executor's.
Result<M4Run> run_on_m4(const mcu::CheckedModel& m, plan::Plan plan, const std::string& name, bool check,
                        bool workspaces) {
  if (workspaces) TINYFIT_RETURN_IF_ERROR(exec::add_kernel_workspaces(m.graph, plan));
  TINYFIT_RETURN_IF_ERROR(plan::place_plan(plan, "greedy-by-size", {}));
  TINYFIT_ASSIGN_OR_RETURN(std::vector<exec::TensorData> executed, exec::execute_plan(m.graph, plan, m.inputs));
  constexpr int64_t kBoardRamBytes = 4 << 20;  // the whole SRAM of mps2-an386 (TOOLCHAIN.md)
  TINYFIT_ASSIGN_OR_RETURN(mcu::EmittedBuild build, mcu::emit_and_build(m.graph, plan, m.inputs, executed,
                                                                        mcu::Target::kCortexM4, kBoardRamBytes,
                                                                        "bench/row_loop_" + name));
  TINYFIT_ASSIGN_OR_RETURN(mcu::ProgramReport report, mcu::run_program(mcu::Target::kCortexM4, build.executable));
  if (check) {
    for (size_t o = 0; o < executed.size(); ++o) {
      if (executed[o].bytes != m.reference.at(o).bytes) {
        return fail("plan '" + name + "': output " + std::to_string(o) + " differs from the reference interpreter's",
                    ExitCode::kInternal);
      }
      if (report.outputs.at(o) != executed[o].bytes) {
        return fail("emitted C of '" + name + "': output " + std::to_string(o) + " differs from the plan executor's",
                    ExitCode::kInternal);
      }
    }
  }
  return M4Run{report.instructions, plan.arena_bytes};
}

// One chain on the Cortex-M4: ordinary, then the row loop at each tile.
void measure_on_m4(const ir::Graph& graph, const analysis::BufferGraph& bg, const analysis::Order& order,
                   const std::vector<exec::TensorData>& inputs, int operators, const std::vector<int64_t>& tiles,
                   bool workspaces) {
  Result<mcu::CheckedModel> m = mcu::make_checked_model(make_prefix_graph(graph, bg, order, operators), inputs);
  if (!m) {
    std::cout << "  m4: " << m.error().format() << "\n";
    return;
  }
  const analysis::BufferGraph prefix_bg = analysis::build_buffer_graph(m->graph);
  const analysis::Order prefix_order = analysis::given_order(prefix_bg);
  const std::string chain = "first" + std::to_string(operators) + (workspaces ? "_ws" : "");
  Result<M4Run> ordinary =
      run_on_m4(*m, plan::build_operator_plan(m->graph, prefix_bg, prefix_order), chain + "_ordinary", true, workspaces);
  if (!ordinary) {
    std::cout << "  m4: " << ordinary.error().format() << "\n";
    return;
  }
  std::cout << "  m4, the first " << operators << " operators alone" << (workspaces ? ", fast-kernel workspaces" : "")
            << ": ordinary " << format_thousands(static_cast<int64_t>(ordinary->instructions))
            << " instructions, arena " << format_thousands(ordinary->arena_bytes) << " bytes\n";
  for (int64_t tile : tiles) {
    plan::RowLoopSpec spec;
    spec.ops = prefix_order;
    spec.tile = tile;
    Result<plan::Plan> rows = plan::build_row_loop_plan(m->graph, prefix_bg, prefix_order, {spec});
    if (!rows) break;
    const std::string name = chain + "_tile" + std::to_string(tile);
    Result<M4Run> without_copies = run_on_m4(*m, drop_copies(*rows), name + "_nocopy", false, workspaces);
    Result<M4Run> loop = run_on_m4(*m, std::move(*rows), name, true, workspaces);
    if (!loop || !without_copies) {
      std::cout << "  m4 tile " << tile << ": " << (!loop ? loop.error() : without_copies.error()).format() << "\n";
      continue;
    }
    const double base = static_cast<double>(ordinary->instructions);
    const int64_t copies = static_cast<int64_t>(loop->instructions) - static_cast<int64_t>(without_copies->instructions);
    std::printf("  m4 tile %3lld: row loop %s instructions (%.3fx ordinary), of which copies %s (%.3fx), arena %s bytes\n",
                static_cast<long long>(tile), format_thousands(static_cast<int64_t>(loop->instructions)).c_str(),
                static_cast<double>(loop->instructions) / base, format_thousands(copies).c_str(),
                static_cast<double>(copies) / base, format_thousands(loop->arena_bytes).c_str());
    std::fflush(stdout);
  }
}

int run(const std::string& model, const std::vector<int>& chains, const std::vector<int64_t>& tiles, bool verify,
        bool m4, bool workspaces) {
  Result<mcu::CheckedModel> loaded = mcu::load_checked_model(model);
  if (!loaded) {
    std::cerr << loaded.error().format() << "\n";
    return 1;
  }
  const ir::Graph& graph = loaded->graph;
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  const analysis::Order order = analysis::given_order(bg);
  const plan::Plan ordinary = plan::build_operator_plan(graph, bg, order);
  const plan::PlanMemory ordinary_memory = plan::compute_plan_memory(ordinary);
  std::cout << "model: " << model << "\nordinary peak: " << format_thousands(ordinary_memory.peak_bytes)
            << " bytes\n\n"
            << "operators  last                          tile  ordinary   row loop   plan peak  MACs   calls  copied   "
               "verified\n";
  for (int operators : chains) {
    if (operators < 1 || operators > static_cast<int>(order.size())) continue;
    const std::string& last = bg.operators[static_cast<size_t>(order[static_cast<size_t>(operators - 1)])].name;
    const int64_t ordinary_part = find_peak_between(ordinary_memory, 0, operators - 1);
    for (int64_t tile : tiles) {
      plan::RowLoopSpec spec;
      spec.ops.assign(order.begin(), order.begin() + operators);
      spec.tile = tile;
      Result<plan::Plan> plan = plan::build_row_loop_plan(graph, bg, order, {spec});
      if (!plan) {
        std::cout << operators << ": " << plan.error().format() << "\n";
        break;
      }
      if (Result<plan::Placement> placed = plan::place_plan(*plan, "greedy-by-size", {}); !placed) {
        std::cerr << placed.error().format() << "\n";
        return 70;
      }
      if (Status valid = plan::verify_plan(graph, *plan); !valid) {
        std::cerr << valid.error().format() << "\n";
        return 70;
      }
      const plan::PlanMemory memory = plan::compute_plan_memory(*plan);
      const plan::LoopSpan& loop = memory.loops.at(0);
      std::string verified = "not run";
      if (verify) {
        Result<driver::Verification> checked = driver::verify_by_execution(graph, *plan, 1, true);
        verified = !checked ? checked.error().format() : checked->verified ? "yes" : "no";
      }
      char macs[16];
      std::snprintf(macs, sizeof macs, "%.3f",
                    static_cast<double>(plan::count_plan_macs(graph, *plan)) /
                        static_cast<double>(ir::count_graph_macs(graph)));
      std::printf("%9d  %-28.28s %5lld  %9s  %9s  %10s  %5s  %5lld  %7s  %s\n", operators, last.c_str(),
                  static_cast<long long>(tile), format_thousands(ordinary_part).c_str(),
                  format_thousands(find_peak_between(memory, loop.first_position, loop.last_position)).c_str(),
                  format_thousands(memory.peak_bytes).c_str(), macs,
                  static_cast<long long>(plan->count_calls()), format_thousands(count_copied_bytes(*plan)).c_str(),
                  verified.c_str());
      std::fflush(stdout);
    }
    if (m4) measure_on_m4(graph, bg, order, loaded->inputs, operators, tiles, workspaces);
  }
  return 0;
}

}  // namespace
}  // namespace tinyfit

int main(int argc, char** argv) {
  CLI::App app{"Memory of row loops over a model's first operators (plan/lower_row_loop.h)"};
  std::string model = "zoo:mobilenetv2-224-int8";
  std::vector<int> chains{2, 3, 6};
  std::vector<int64_t> tiles{1, 2, 8};
  bool no_verify = false, m4 = false, workspaces = false;
  app.add_option("model", model, "model file or zoo:NAME");
  app.add_option("--operators", chains, "chains: the first N operators of the model's order")->delimiter(',');
  app.add_option("--tiles", tiles, "output rows of the chain's last operator per iteration")->delimiter(',');
  app.add_flag("--no-verify", no_verify, "skip execution against the reference interpreter");
  app.add_flag("--m4", m4, "also measure each chain alone as emitted C on the emulated Cortex-M4");
  app.add_flag("--workspaces", workspaces, "--m4: with the fast conv kernels' workspaces (exec/add_kernel_workspaces.h)");
  CLI11_PARSE(app, argc, argv);
  try {
    return tinyfit::run(model, chains, tiles, !no_verify, m4, workspaces);
  } catch (const std::exception& e) {
    std::cerr << "tinyfit_bench_row_loop: internal error: " << e.what() << "\n";
    return 70;
  }
}
